import { PipelineEvent } from "@deepnote/core"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import type { StoreError } from "./Domain/Errors.js"
import type { StoredEvent } from "./Domain/StoredEvent.js"
import { decodeRowWith, fromJson, nowIso, sqlFailure, toJson } from "./internal/sql.js"

/** The run event log, so the HTTP app can stream a run's events and resume a stream with `Last-Event-ID`. */
export interface EventLogService {
  /** Appends events of one item in one transaction; returns their `seq`s. */
  readonly append: (
    runId: string,
    itemId: string,
    events: ReadonlyArray<PipelineEvent>
  ) => Effect.Effect<ReadonlyArray<number>, StoreError>
  /** Events of a run with `seq > afterSeq` (default 0), oldest first, at most `limit` (default 1000). */
  readonly since: (
    runId: string,
    options?: { readonly afterSeq?: number; readonly limit?: number }
  ) => Effect.Effect<ReadonlyArray<StoredEvent>, StoreError>
  /** How many events one item has logged (a resumed item re-emits them; the executor skips that many). */
  readonly countForItem: (runId: string, itemId: string) => Effect.Effect<number, StoreError>
}

const EventRow = Schema.Struct({
  seq: Schema.Int,
  run_id: Schema.String,
  item_id: Schema.String,
  event: Schema.String,
  created_at: Schema.String
})
const decodeRow = decodeRowWith(EventRow, "event row")
const decodeEvent = fromJson(PipelineEvent, "event")
const encodeEvent = toJson(PipelineEvent)

export class EventLog extends Context.Tag("@deepnote/store/EventLog")<EventLog, EventLogService>() {
  static readonly make = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const append = Effect.fn("EventLog.append")(function*(
      runId: string,
      itemId: string,
      events: ReadonlyArray<PipelineEvent>
    ) {
      yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId, "deepnote.item.id": itemId })
      const createdAt = yield* nowIso
      return yield* Effect.forEach(events, (event) =>
        Effect.gen(function*() {
          const rows = yield* sql<{ seq: number }>`INSERT INTO events ${
            sql.insert({ run_id: runId, item_id: itemId, event: yield* encodeEvent(event), created_at: createdAt })
          } RETURNING seq`
          return rows[0]?.seq ?? 0
        })).pipe(sql.withTransaction, sqlFailure("appending events"))
    })
    const since = Effect.fn("EventLog.since")(function*(
      runId: string,
      options?: { readonly afterSeq?: number; readonly limit?: number }
    ) {
      yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId })
      const rows = yield* sql`SELECT * FROM events WHERE run_id = ${runId} AND seq > ${options?.afterSeq ?? 0}
        ORDER BY seq LIMIT ${options?.limit ?? 1000}`.pipe(sqlFailure("reading events"))
      return yield* Effect.forEach(rows, (row) =>
        Effect.gen(function*() {
          const r = yield* decodeRow(row)
          return {
            seq: r.seq,
            runId: r.run_id,
            itemId: r.item_id,
            event: yield* decodeEvent(r.event),
            createdAt: new Date(r.created_at)
          }
        }))
    })
    const countForItem = Effect.fn("EventLog.countForItem")(function*(runId: string, itemId: string) {
      const rows = yield* sql<
        { n: number }
      >`SELECT count(*) AS n FROM events WHERE run_id = ${runId} AND item_id = ${itemId}`.pipe(
        sqlFailure("counting events")
      )
      return Number(rows[0]?.n ?? 0)
    })
    return EventLog.of({ append, since, countForItem })
  })

  static readonly layer: Layer.Layer<EventLog, never, SqlClient.SqlClient> = Layer.effect(EventLog, EventLog.make)
}
