import { defaultRunConfig } from "@deepnote-rag/core"
import { LlmSettings } from "@deepnote-rag/llm"
import { defaultLimits, serverLayer } from "@deepnote-rag/server"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import * as Path from "node:path"
import { indexedHome, runCli, sampleRunArgs, tempHome } from "./RunCli.js"

interface Item {
  readonly itemId: string
  readonly status: string
  readonly gold: ReadonlyArray<string>
  readonly result?: { readonly trace: { readonly notes: ReadonlyArray<{ readonly note: { readonly text: string } }> } }
}

/** The HTTP app over `home` without keys (as `deepnote ui` serves it) on a random 127.0.0.1 port. */
const server = (home: string) =>
  serverLayer({
    home,
    settings: { auth: false, defaults: defaultRunConfig, limits: defaultLimits, workers: 0 },
    llmSettings: LlmSettings.layerConfig
  }).pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })))

const get = <A>(path: string) =>
  Effect.gen(function*() {
    const address = (yield* HttpServer.HttpServer).address
    const port = address._tag === "TcpAddress" ? address.port : 0
    const response = yield* Effect.promise(() => fetch(`http://127.0.0.1:${port}${path}`))
    assert.strictEqual(response.status, 200, path)
    return (yield* Effect.promise(() => response.json())) as A
  })

describe("deepnote demo and the inspector", () => {
  it.scopedLive(
    "leaves its questions as a run labelled demo that the inspector's API lists with their notes",
    () =>
      Effect.gen(function*() {
        const home = yield* tempHome
        const demo = yield* runCli(["demo", "--home", home])
        assert.strictEqual(demo.code, 0, demo.stderr)
        assert.include(demo.stdout, "Demo 3/3")
        assert.include(demo.stdout, "Answer: ")
        const runId = new RegExp(`Look at it: deepnote ui (r-[0-9a-z-]+) --home ${home}\\s*$`).exec(demo.stdout)?.[1]
        assert.isDefined(runId, demo.stdout)

        yield* Effect.gen(function*() {
          const { runs } = yield* get<{ runs: ReadonlyArray<{ id: string; label?: string; status: string }> }>(
            "/v1/runs"
          )
          const run = runs.find((r) => r.id === runId)
          assert.deepStrictEqual([run?.label, run?.status], ["demo", "completed"])
          const { items } = yield* get<{ items: ReadonlyArray<Item> }>(`/v1/runs/${runId}/results`)
          assert.deepStrictEqual(items.map((i) => i.status), ["done", "done", "done"])
          assert.deepStrictEqual(items.map((i) => i.gold), [["the North Atlantic Conference"], ["yes"], [
            "三茂铁路股份有限公司"
          ]])
          for (const item of items) {
            assert.isAbove(item.result?.trace.notes.length ?? 0, 0, item.itemId)
            assert.isAbove(item.result?.trace.notes[0]?.note.text.length ?? 0, 0, item.itemId)
          }
        }).pipe(Effect.provide(server(home)))
      }),
    { timeout: 120_000 }
  )

  it.scopedLive(
    "a question's stored trace id is a trace of `deepnote run --trace`, and the item names its command",
    () =>
      Effect.gen(function*() {
        const home = yield* indexedHome
        const ran = yield* runCli(sampleRunArgs(home, "--limit", "1", "--trace", "--quiet"))
        assert.strictEqual(ran.code, 0, ran.stderr)
        const runId = /run (r-[0-9a-z-]+): 1 question\b/.exec(ran.stdout)?.[1] ?? ""
        yield* Effect.gen(function*() {
          const { items } = yield* get<{ items: ReadonlyArray<{ itemId: string }> }>(`/v1/runs/${runId}/results`)
          const itemId = items[0]!.itemId
          const item = yield* get<{ traceId?: string; traceCommand?: string }>(`/v1/runs/${runId}/items/${itemId}`)
          assert.strictEqual(item.traceCommand, `deepnote trace ${runId} --item ${itemId}`)
          const spans = readFileSync(Path.join(home, "traces", `${runId}.jsonl`), "utf8").trim().split("\n")
            .map((line) => JSON.parse(line) as { traceId: string; attributes: Record<string, unknown> })
          const ofItem = spans.filter((s) => s.attributes["deepnote.item.id"] === itemId)
          assert.isAbove(ofItem.length, 0)
          assert.isTrue(ofItem.every((s) => s.traceId === item.traceId), "the item's spans are in its stored trace")
          const shown = yield* runCli(["trace", runId, "--item", itemId, "--home", home])
          assert.strictEqual(shown.code, 0, shown.stderr)
          assert.include(shown.stdout, item.traceId!)
        }).pipe(Effect.provide(server(home)))
      }),
    { timeout: 120_000 }
  )
})
