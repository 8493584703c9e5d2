import { Retriever } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { PrecomputedRetriever } from "../src/index.js"
import { request } from "./support/Context.js"
import { tempDir, writeFile } from "./support/TempHome.js"

const lines = [
  {
    question_id: "5a8c7595554299585d9e36b6",
    passages: [
      { id: "p1", title: "Shirley Temple", text: "Shirley Temple was Chief of Protocol.", score: 12.5 },
      { id: "p2", title: "Kiss and Tell", text: "Kiss and Tell is a 1945 film.", score: 9.1 },
      { id: "p3", title: "Janet Waldo", text: "Janet Waldo voiced Corliss Archer.", score: 3 }
    ]
  },
  {
    query: "who directed Payment on Demand",
    passages: [{ title: "Payment on Demand", text: "Directed by Curtis Bernhardt." }]
  }
]

const search = (r: ReturnType<typeof request>) => Effect.flatMap(Retriever, (retriever) => retriever.search(r))

const withFile = (content: string, onMissing?: "fail" | "empty") =>
  Layer.unwrapScoped(
    Effect.map(tempDir, (dir) =>
      PrecomputedRetriever.layer({
        file: writeFile(dir, "retrieved.jsonl", content),
        ...(onMissing ? { onMissing } : {})
      }))
  )

describe("PrecomputedRetriever", () => {
  const Good = withFile(lines.map((l) => JSON.stringify(l)).join("\n") + "\n")

  it.scoped("serves by question id, then by exact query text, with dedup and top-k", () =>
    Effect.gen(function*() {
      const byId = yield* search(request(["anything"], { questionId: "5a8c7595554299585d9e36b6", topK: 2 }))
      assert.deepStrictEqual(byId.map((p) => [p.id, p.score, p.source]), [["p1", 12.5, "retrieved.jsonl"], [
        "p2",
        9.1,
        "retrieved.jsonl"
      ]])
      const next = yield* search(
        request(["anything"], { questionId: "5a8c7595554299585d9e36b6", topK: 2, exclude: ["p1", "p2"] })
      )
      assert.deepStrictEqual(next.map((p) => p.id), ["p3"])
      const byQuery = yield* search(request(["who directed Payment on Demand "], { questionId: "other" }))
      assert.strictEqual(byQuery[0]!.title, "Payment on Demand")
      assert.match(byQuery[0]!.id, /^p[0-9a-f]{12}$/u)
      assert.strictEqual(byQuery[0]!.score, 1)
      const missing = yield* Effect.flip(search(request(["unknown"], { questionId: "nope" })))
      assert.include(missing.message, "no precomputed retrieval for question \"nope\"")
    }).pipe(Effect.provide(Good)))

  it.scoped("can return nothing for unknown questions", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* search(request(["unknown"], { questionId: "nope" })), [])
    }).pipe(Effect.provide(withFile(JSON.stringify(lines[0]) + "\n", "empty"))))

  it.scoped("an invalid record fails the layer with file:line", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = writeFile(
        dir,
        "bad.jsonl",
        JSON.stringify(lines[0]) + "\n" + JSON.stringify({ passages: [] }) + "\n"
      )
      const error = yield* Effect.flip(Effect.provide(search(request(["x"])), PrecomputedRetriever.layer({ file })))
      assert.include(error.message, `${file}:2: invalid precomputed record`)
      assert.include(error.message, "a record needs question_id or query")
      const missing = yield* Effect.flip(
        Effect.provide(search(request(["x"])), PrecomputedRetriever.layer({ file: `${dir}/none.jsonl` }))
      )
      assert.include(missing.message, "precomputed retrieval file not found")
    }))
})
