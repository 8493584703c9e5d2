import { StoreError } from "@deepnote-rag/store"
import { EmbeddedPostgres } from "@deepnote-rag/store/testing"
import { HttpClientRequest } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Fiber, Schedule } from "effect"
import { toApiError } from "../src/Http/ErrorResponses.js"
import { createKey, makeHome, raw, settings, testServer } from "./Harness.js"

const listRuns = (key: string) => raw(HttpClientRequest.get("/v1/runs"), key)

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
          const restart = yield* Effect.fork(pg.restart("3 seconds"))
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
          assert.match(body.error.message, /^the run store cannot be reached: reading an API key failed: /)
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
})
