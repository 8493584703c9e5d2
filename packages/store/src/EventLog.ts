import { annotateHotSpan, firstDecodeIssue, PipelineEvent, withHotSpan } from "@deepnote-rag/core"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { type JournalMismatch, StoreError } from "./Domain/Errors.js"
import type { StoredEvent } from "./Domain/StoredEvent.js"
import { appendDirect } from "./internal/directAppend.js"
import { eventNumbers, notYetLogged } from "./internal/eventNumbering.js"
import { EventRow } from "./internal/eventRows.js"
import { type JournalAppend, makeInsertEntries } from "./internal/journalRows.js"
import { makePassageRefs } from "./internal/passageRefs.js"
import { makeQueries } from "./internal/query.js"
import { chunks, DbInt, now } from "./internal/sql.js"
import { SqliteDirect } from "./internal/sqliteDirect.js"

/** The run event log, so the HTTP app can stream a run's events and resume a stream with `Last-Event-ID`. */
export interface EventLogService {
  /**
   * Appends events of one item in one transaction; returns their `seq`s. A run's events are numbered 1, 2, 3, …
   * without gaps in commit order, so a reader on any machine that follows "seq > last seen" misses none.
   */
  readonly append: (
    runId: string,
    itemId: string,
    events: ReadonlyArray<PipelineEvent>,
    options?: {
      /**
       * The position of `events[0]` among the item's events (0 for its first event). With it, events at positions the
       * item has already logged are skipped: appends are idempotent by position.
       */
      readonly position?: number
      /**
       * Journal entries of the item written in the same transaction (a call and the event that follows it: see
       * `Replay.takeUnsaved`), idempotent as `Journal.appendAll`.
       */
      readonly journal?: ReadonlyArray<JournalAppend>
    }
  ) => Effect.Effect<ReadonlyArray<number>, JournalMismatch | StoreError>
  /** Events of a run with `seq > afterSeq` (default 0), oldest first, at most `limit` (default 1000). */
  readonly since: (
    runId: string,
    options?: { readonly afterSeq?: number; readonly limit?: number }
  ) => Effect.Effect<ReadonlyArray<StoredEvent>, StoreError>
  /** How many events one item has logged (a resumed item re-emits them; the executor skips that many). */
}

/** Synchronous, on both paths: an event that does not encode is a defect (a bug in the code that made it). */
const encodeEvent = Schema.encodeSync(PipelineEvent)
const decodeEvent = Schema.decodeUnknown(PipelineEvent)

export class EventLog extends Context.Tag("@deepnote-rag/store/EventLog")<EventLog, EventLogService>() {
  static readonly make: Effect.Effect<EventLogService, never, SqlClient.SqlClient> = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { execute, findAll, findOne, sqlFailure, transaction } = makeQueries(sql)
    const insertEntries = makeInsertEntries(sql)
    const refs = makePassageRefs(sql)
    // Takes `count` numbers from the run's counter under the run row's lock (Postgres: the row lock, held to commit;
    // SQLite: the write lock). The next appender waits for this transaction, so numbers are committed in order.
    const reserve = findOne({
      table: "runs",
      action: "appending events",
      Request: Schema.Struct({ runId: Schema.String, count: Schema.Int }),
      Result: Schema.Struct({ next_event_seq: Schema.Int }),
      execute: ({ count, runId }) =>
        sql`UPDATE runs SET next_event_seq = next_event_seq + ${count} WHERE id = ${runId} RETURNING next_event_seq`
    })
    const insert = execute({
      table: "events",
      action: "appending events",
      Request: Schema.Array(EventRow),
      execute: (rows) => sql`INSERT INTO events ${sql.insert(rows)}`
    })
    const select = findAll({
      table: "events",
      action: "reading events",
      Request: Schema.Struct({ runId: Schema.String, afterSeq: Schema.Int, limit: Schema.Int }),
      Result: EventRow,
      execute: (r) =>
        sql`SELECT run_id, seq, item_id, event, created_at FROM events WHERE run_id = ${r.runId} AND seq > ${r.afterSeq}
          ORDER BY seq LIMIT ${r.limit}`
    })
    const count = findOne({
      table: "events",
      action: "counting events",
      Request: Schema.Struct({ runId: Schema.String, itemId: Schema.String }),
      Result: Schema.Struct({ n: DbInt }),
      execute: (r) => sql`SELECT count(*) AS n FROM events WHERE run_id = ${r.runId} AND item_id = ${r.itemId}`
    })

    // SQLite: the whole append as one synchronous transaction on prepared statements (`internal/directAppend.ts`)
    const direct = yield* Effect.serviceOption(SqliteDirect)
    const appendFailure = sqlFailure("appending events")

    const append = Effect.fnUntraced(function*(
      runId: string,
      itemId: string,
      all: ReadonlyArray<PipelineEvent>,
      options?: { readonly position?: number; readonly journal?: ReadonlyArray<JournalAppend> }
    ) {
      yield* annotateHotSpan({ "deepnote.run.id": runId, "deepnote.item.id": itemId })
      const journal = options?.journal ?? []
      if (all.length === 0 && journal.length === 0) return []
      if (Option.isSome(direct)) {
        const events = all.map((event) => encodeEvent(event))
        const createdAt = yield* now
        const written = { runId, itemId, events, position: options?.position, journal, createdAt }
        return yield* direct.value.transaction((db) => appendDirect(db, written)).pipe(
          Effect.catchTag("SqlError", appendFailure)
        )
      }
      return yield* Effect.gen(function*() {
        if (journal.length > 0) yield* insertEntries(journal)
        if (all.length === 0) return []
        // numbered as `internal/eventNumbering.ts` says
        const reserved = yield* reserve({ runId, count: all.length })
        if (Option.isNone(reserved)) {
          return yield* new StoreError({ message: `appending events failed: run ${runId} not found` })
        }
        let events = all
        let end = reserved.value.next_event_seq
        if (options?.position !== undefined) {
          const logged = Option.match(yield* count({ runId, itemId }), { onNone: () => 0, onSome: (row) => row.n })
          events = notYetLogged(all, options.position, logged)
          if (events.length < all.length) {
            end = Option.match(yield* reserve({ runId, count: events.length - all.length }), {
              onNone: () => end,
              onSome: (row) => row.next_event_seq
            })
          }
          if (events.length === 0) return []
        }
        const seqs = eventNumbers(end, events.length)
        const createdAt = yield* now
        const encoded = events.map((event) => encodeEvent(event))
        const stored = yield* refs.dehydrate(runId, encoded)
        const rows = stored.map((event, i) => ({
          run_id: runId,
          seq: seqs[i]!,
          item_id: itemId,
          event,
          created_at: createdAt
        }))
        for (const batch of chunks(rows)) yield* insert(batch)
        return seqs
      }).pipe(transaction("appending events"))
    }, withHotSpan("EventLog.append"))
    const since = Effect.fn("EventLog.since")(function*(
      runId: string,
      options?: { readonly afterSeq?: number; readonly limit?: number }
    ) {
      yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId })
      const rows = yield* select({ runId, afterSeq: options?.afterSeq ?? 0, limit: options?.limit ?? 1000 })
      const values = yield* refs.hydrate(runId, rows.map((r) => r.item_id), rows.map((r) => r.event))
      return yield* Effect.forEach(rows, (r, i) =>
        decodeEvent(values[i]).pipe(
          Effect.mapError((e) =>
            new StoreError({
              message: `a stored events row does not decode (reading events): ${firstDecodeIssue(e, "row")}`
            })
          ),
          Effect.map((event): StoredEvent => ({
            seq: r.seq,
            runId: r.run_id,
            itemId: r.item_id,
            event,
            createdAt: r.created_at
          }))
        ))
    })
    return EventLog.of({ append, since })
  })

  static readonly layer: Layer.Layer<EventLog, never, SqlClient.SqlClient> = Layer.effect(EventLog, EventLog.make)
}
