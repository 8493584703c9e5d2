import { defaultRunConfig } from "@deepnote-rag/core"
import { LlmSettings } from "@deepnote-rag/llm"
import { defaultLimits, serverLayer } from "@deepnote-rag/server"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { indexedHome, runCli, sampleSweepArgs } from "./RunCli.js"

/** The HTTP app over `home` on a random 127.0.0.1 port. */
const server = (home: string, auth: boolean) =>
  serverLayer({
    home,
    settings: { auth, defaults: defaultRunConfig, limits: defaultLimits, workers: 0 },
    llmSettings: LlmSettings.layerConfig
  }).pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })))

const get = (path: string, key?: string) =>
  Effect.gen(function*() {
    const address = (yield* HttpServer.HttpServer).address
    const port = address._tag === "TcpAddress" ? address.port : 0
    const response = yield* Effect.promise(() =>
      fetch(`http://127.0.0.1:${port}${path}`, key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } })
    )
    return { status: response.status, body: (yield* Effect.promise(() => response.json())) as Record<string, unknown> }
  })

describe("the HTTP app over a home the CLI used", () => {
  it.scopedLive("--no-auth sees the CLI's runs and sweeps; a tenant with a key gets 404", () =>
    Effect.gen(function*() {
      const home = yield* indexedHome
      const ran = yield* runCli(sampleSweepArgs(home, "grid:\n  maxStep: [2, 3]\n", 2))
      assert.strictEqual(ran.code, 0, ran.stderr)
      const runIds = [...ran.stdout.matchAll(/run (r-[0-9a-z-]+): 2 questions/g)].map((m) => m[1]!)
      const sweepId = /sweep (s-[0-9a-z-]+)/.exec(ran.stdout)?.[1] ?? ""
      assert.strictEqual(runIds.length, 2)
      const key = (yield* runCli(["keys", "create", "--tenant", "acme", "--home", home])).stdout.trim()

      yield* Effect.gen(function*() {
        const run = yield* get(`/v1/runs/${runIds[0]}`)
        assert.strictEqual(run.status, 200, JSON.stringify(run.body))
        assert.deepStrictEqual([run.body.status, run.body.sweepId], ["completed", sweepId])
        const listed = (yield* get("/v1/runs")).body.runs as Array<{ id: string }>
        assert.sameMembers(listed.map((r) => r.id), runIds)
        const sweep = yield* get(`/v1/sweeps/${sweepId}`)
        assert.strictEqual(sweep.status, 200)
        assert.deepStrictEqual(sweep.body.grid, { maxStep: [2, 3] })
        assert.deepStrictEqual((sweep.body.cells as Array<{ runId: string }>).map((c) => c.runId), runIds)
        const compared = yield* get(`/v1/compare?base=${runIds[0]}&candidate=${runIds[1]}`)
        assert.strictEqual(compared.status, 200)
        assert.strictEqual(compared.body.paired, 2)
      }).pipe(Effect.provide(server(home, false)))

      yield* Effect.gen(function*() {
        for (const path of [`/v1/runs/${runIds[0]}`, `/v1/sweeps/${sweepId}`, `/v1/runs/${runIds[0]}/results`]) {
          const response = yield* get(path, key)
          assert.strictEqual(response.status, 404, path)
          assert.strictEqual((response.body.error as { code: string }).code, "not_found")
        }
        assert.deepStrictEqual((yield* get("/v1/runs", key)).body, { runs: [] })
      }).pipe(Effect.provide(server(home, true)))
    }), 180_000)
})
