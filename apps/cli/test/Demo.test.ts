import { defaultRunConfig } from "@deepnote/core"
import { LlmSettings } from "@deepnote/llm"
import { defaultLimits, serverLayer } from "@deepnote/server"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { runCli, tempHome } from "./RunCli.js"

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

describe("deepnote demo", () => {
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
})
