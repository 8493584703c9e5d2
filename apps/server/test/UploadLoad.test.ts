import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Fiber } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { baseUrl, createKey, makeHome, portServer } from "./Harness.js"

const corpus = Path.resolve(import.meta.dirname, "../../../../shared/data/corpus/en-multihop.jsonl")
const tenants = ["alpha", "beta", "gamma"]
/**
 * The shared corpus once per tenant (about 6.4 MB of JSON Lines each). At two copies the test timed out at 300 s beside
 * four busy-loop processes and the CLI's suite (load 9–11); at five (32 MB each, what benchmarks/server/uploads.mjs
 * measures) it took over 300 s beside a CPU hog alone. The readiness probe runs every 5 ms, so that one copy still gives
 * a p99 enough samples on a quiet machine.
 */
const copies = 1

/** The shared corpus `copies` times for one tenant, every id made distinct. */
const uploadOf = (tenant: string) => {
  const lines = Fs.readFileSync(corpus, "utf8").split("\n").filter((line) => line.trim() !== "")
  const parts: Array<string> = []
  for (let copy = 0; copy < copies; copy++) {
    for (const line of lines) parts.push(line.replace(/"id": ?"/u, (m) => `${m}${tenant}${copy}-`))
  }
  return { body: Buffer.from(parts.join("\n") + "\n"), documents: parts.length }
}

const milliseconds = Effect.map(Clock.currentTimeNanos, (ns) => Number(ns) / 1e6)

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!

describe("uploads under load", () => {
  it.scopedLive.skipIf(!Fs.existsSync(corpus))(
    "/readyz stays responsive (p99 under 300 ms) while three tenants upload 6.4 MB each; every document is indexed exactly once",
    () =>
      Effect.gen(function*() {
        const home = yield* makeHome
        const keys = yield* Effect.forEach(tenants, (tenant) => createKey(home, tenant))
        const uploads = tenants.map(uploadOf)
        for (const upload of uploads) assert.isAbove(upload.body.length, 6_000_000)
        return yield* Effect.gen(function*() {
          const url = yield* baseUrl
          const call = (path: string, key: string, init: RequestInit = {}) =>
            Effect.promise(async () => {
              const response = await fetch(`${url}${path}`, {
                ...init,
                headers: { authorization: `Bearer ${key}`, ...init.headers }
              })
              return { status: response.status, json: (await response.json()) as Record<string, unknown> }
            })
          for (const key of keys) {
            const created = yield* call("/v1/collections", key, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ name: "docs" })
            })
            assert.strictEqual(created.status, 201)
          }

          const latencies: Array<number> = []
          const notReady: Array<number> = []
          const probe = Effect.gen(function*() {
            const start = yield* milliseconds
            const ready = yield* Effect.promise(() => fetch(`${url}/readyz`).then((r) => r.text().then(() => r.status)))
            if (ready !== 200) notReady.push(ready)
            latencies.push((yield* milliseconds) - start)
            yield* Effect.sleep("5 millis")
          })
          const sampler = yield* Effect.fork(Effect.forever(probe))

          const started = yield* milliseconds
          const results = yield* Effect.forEach(tenants, (_, i) =>
            Effect.gen(function*() {
              const accepted = yield* call("/v1/collections/docs/documents", keys[i]!, {
                method: "POST",
                headers: { "content-type": "application/x-ndjson" },
                body: uploads[i]!.body
              })
              assert.strictEqual(accepted.status, 202, JSON.stringify(accepted.json))
              assert.strictEqual(accepted.json["received"], uploads[i]!.documents)
              const acceptedMs = (yield* milliseconds) - started
              let job = accepted.json
              while (job["status"] === "queued" || job["status"] === "running") {
                yield* Effect.sleep("200 millis")
                job = (yield* call(`/v1/collections/docs/jobs/${String(accepted.json["id"])}`, keys[i]!)).json
              }
              return { job, acceptedMs, doneMs: (yield* milliseconds) - started }
            }), { concurrency: "unbounded" })
          yield* Fiber.interrupt(sampler)

          for (const [i, { job }] of results.entries()) {
            const expected = uploads[i]!.documents
            assert.deepStrictEqual(
              [job["status"], job["received"], job["added"], job["skipped"]],
              ["done", expected, expected, 0],
              JSON.stringify(job)
            )
            const collection = yield* call("/v1/collections/docs", keys[i]!)
            assert.strictEqual(collection.json["documents"], expected)
          }
          const sorted = [...latencies].sort((a, b) => a - b)
          const p99 = percentile(sorted, 0.99)
          yield* Effect.logInfo(
            `readyz over ${sorted.length} samples: p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p99 ${
              p99.toFixed(1)
            } ms, max ${sorted[sorted.length - 1]!.toFixed(1)} ms; 202 after ${
              results.map((r) => Math.round(r.acceptedMs)).join("/")
            } ms, indexed after ${results.map((r) => Math.round(r.doneMs)).join("/")} ms`
          )
          assert.deepStrictEqual(notReady, [], "every readyz answered 200")
          assert.isAtLeast(sorted.length, 200, "enough samples for a p99")
          // A loop blocked by ingestion answered after seconds (p99 6 s before uploads were ingested in batches that
          // yield, benchmarks/reliability); a quiet machine answers in under 40 ms (benchmarks/server, 37 ms at 32 MB a
          // tenant). Beside a CPU hog the scheduler alone took p99 to 100–170 ms (load 6–15), so the bound here is the
          // one a blocked loop cannot meet on any machine, and the quiet figure is the benchmark's.
          assert.isBelow(p99, 300, "readyz p99 (ms) while three uploads are ingested")
        }).pipe(Effect.provide(portServer(home)))
      }),
    { timeout: 300_000 }
  )
})
