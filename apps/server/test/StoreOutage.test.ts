import { StoreError } from "@deepnote-rag/store"
import { EmbeddedPostgres } from "@deepnote-rag/store/testing"
import { HttpClientRequest } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Chunk, ConfigProvider, Effect, Fiber, Layer, Schedule, Stream } from "effect"
import * as Fs from "node:fs"
import { toApiError } from "../src/Http/ErrorResponses.js"
import {
  clientWith,
  createKey,
  makeHome,
  raw,
  sampleQuestions,
  seedCollection,
  settings,
  testServer
} from "./Harness.js"
import { sseEvents } from "./Sse.js"

const listRuns = (key: string) => raw(HttpClientRequest.get("/v1/runs"), key)

/** A job whose release the outage swallowed is taken again after 2 s instead of the default 30 s. */
const shortJobLocks = Layer.setConfigProvider(
  ConfigProvider.fromMap(new Map([["DEEPNOTE_QUEUE_LOCK_EXPIRATION", "2 seconds"]])).pipe(
    ConfigProvider.orElse(() => ConfigProvider.fromEnv())
  )
)

describe("a store that cannot be reached (a Postgres restart)", () => {
  it.scopedLive(
    "requests get 503 store_unavailable with Retry-After (authentication included), and 200 once it is back",
    () =>
      Effect.gen(function*() {
        const pg = yield* EmbeddedPostgres
        const url = yield* pg.createDatabase
        const home = yield* makeHome
        const key = yield* createKey(home, "t1", url)
        yield* Effect.gen(function*() {
          assert.strictEqual((yield* listRuns(key)).status, 200)
          // down 5 s: after the first 503 (seen within 3 s) there is time left to see a request fail at authentication
          const restart = yield* Effect.fork(pg.restart("5 seconds"))
          // the first answer that is not a 200 (the server goes down a few hundred milliseconds after the restart began)
          const down = yield* listRuns(key).pipe(
            Effect.filterOrFail((response) => response.status !== 200),
            Effect.retry(Schedule.spaced("100 millis")),
            Effect.timeout("3 seconds")
          )
          assert.strictEqual(down.status, 503, down.text)
          assert.strictEqual(down.headers["retry-after"], "5")
          const body = JSON.parse(down.text) as { error: { code: string; message: string } }
          assert.strictEqual(body.error.code, "store_unavailable")
          // the outage may begin at any of the request's store reads — authentication (the key, then its tenant), the
          // tenant's request quota ("counting a request"), the listing — and the message names the one that failed
          assert.match(body.error.message, /^the run store cannot be reached: [A-Za-z' ]+ failed: /)
          // while the store is down, a request's first read — authentication's — is the one that fails: still a 503
          const atAuthentication = yield* listRuns(key).pipe(
            Effect.filterOrFail((response) => response.status === 503 && response.text.includes("reading an API key")),
            Effect.retry(Schedule.spaced("50 millis")),
            Effect.timeout("2 seconds")
          )
          assert.strictEqual(atAuthentication.headers["retry-after"], "5")
          yield* Fiber.join(restart)
          // the pool lets its dead connections go: the same request succeeds again
          const back = yield* listRuns(key).pipe(
            Effect.filterOrFail((response) => response.status === 200),
            Effect.retry(Schedule.spaced("200 millis")),
            Effect.timeout("10 seconds")
          )
          assert.strictEqual(back.status, 200, back.text)
        }).pipe(Effect.provide(testServer(home, settings({ workers: 0 }), url)))
      }).pipe(Effect.provide(EmbeddedPostgres.layer)),
    120_000
  )

  it("a store failure that reached the request as a defect (inside a question's journal) is the same answer", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })
    const unreachable = toApiError(
      Cause.die(new StoreError({ message: "appending events failed: connect ECONNREFUSED", cause: refused })),
      () => []
    )
    assert.deepInclude(unreachable?.error, { code: "store_unavailable", retryAfterSeconds: 5 })
    const full = Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" })
    const failed = toApiError(
      Cause.die(new StoreError({ message: "appending events failed: database or disk is full", cause: full })),
      () => []
    )
    assert.deepInclude(failed?.error, {
      code: "store_error",
      message: "appending events failed: database or disk is full"
    })
  })

  it.scopedLive(
    "a run's SSE stream stays open while the store cannot be reached and goes on where it was: every event once, then end",
    () =>
      Effect.gen(function*() {
        const pg = yield* EmbeddedPostgres
        const url = yield* pg.createDatabase
        const home = yield* makeHome
        const key = yield* createKey(home, "acme", url)
        yield* seedCollection(home, "acme__wiki")
        yield* Effect.gen(function*() {
          const client = yield* clientWith(key)
          const jsonl = Fs.readFileSync(sampleQuestions, "utf8")
          const run = yield* client.runs.create({
            payload: { collection: "wiki", jsonl, concurrency: 1, config: { maxStep: 2 } },
            urlParams: {}
          })
          const following = yield* Effect.fork(Stream.runCollect(
            sseEvents(HttpClientRequest.get(`/v1/runs/${run.id}/events`).pipe(HttpClientRequest.bearerToken(key)))
          ))
          // the store goes away once the run has answered a question
          yield* client.runs.get({ path: { id: run.id } }).pipe(
            Effect.filterOrFail((view) => view.counts.done >= 1),
            Effect.retry(Schedule.spaced("50 millis")),
            Effect.timeout("30 seconds")
          )
          yield* pg.restart("2 seconds")
          const events = Chunk.toReadonlyArray(yield* Fiber.join(following).pipe(Effect.timeout("90 seconds")))
          const last = events[events.length - 1]
          assert.strictEqual(last?.event, "end", `the stream ended with ${JSON.stringify(last)}`)
          assert.strictEqual(JSON.parse(last!.data).status, "completed")
          const ids = events.flatMap((e) => e.id === undefined ? [] : [Number(e.id)])
          assert.strictEqual(new Set(ids).size, ids.length, "no event twice")
          assert.deepStrictEqual(ids, [...ids].sort((a, b) => a - b))
          const answered = events.filter((e) => e.event === "Answered").map((e) => JSON.parse(e.data).itemId as string)
          assert.strictEqual(new Set(answered).size, run.counts.total)
        }).pipe(Effect.provide(testServer(home, settings({ workers: 2 }), url).pipe(Layer.provide(shortJobLocks))))
      }).pipe(Effect.provide(EmbeddedPostgres.layer)),
    150_000
  )
})
