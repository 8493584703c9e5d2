import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import type { JournalMismatch, StoreError } from "./Domain/Errors.js"
import type { JournalEntry, JournalTotals } from "./Domain/JournalEntry.js"
import { type JournalAppend, JournalRow, makeInsertEntries, toJournalEntry } from "./internal/journalRows.js"
import { makePassageRefs } from "./internal/passageRefs.js"
import { makeQueries } from "./internal/query.js"
import { byteOrder, DbInt, DbNumber } from "./internal/sql.js"
import { makeReplay, type PersistMode, type Replay } from "./Replay.js"

export type { JournalAppend }

/** The step journal: every LLM and retrieval call of every item, keyed by `(run, item, seq)`. */
export interface JournalService {
  /** An item's entries ordered by `seq`. */
  readonly entries: (runId: string, itemId: string) => Effect.Effect<ReadonlyArray<JournalEntry>, StoreError>
  /**
   * Writes one entry in its own transaction. Idempotent for the same `(run, item, seq, kind, requestHash)`; a different
   * kind or hash at a journaled position fails with `JournalMismatch`. The item must exist (`RunStore.addItems`).
   */
  readonly append: (entry: JournalAppend) => Effect.Effect<void, JournalMismatch | StoreError>
  /** Writes several entries in one transaction (all or nothing). */
  readonly appendAll: (entries: ReadonlyArray<JournalAppend>) => Effect.Effect<void, JournalMismatch | StoreError>
  /** Per-item totals of a run's journal (calls, LLM calls, tokens, call latency), for reports. */
  readonly totals: (runId: string) => Effect.Effect<ReadonlyArray<JournalTotals>, StoreError>
  /**
   * Loads an item's journal and returns a `Replay` whose `call` serves journaled calls and executes the rest.
   * `persist: "each"` (default) writes every executed call at once, so a crash loses at most the call in flight;
   * `"on-complete"` buffers them for `RunStore.completeItem`/`failItem` (one write per item); `"next-write"` buffers
   * them for the caller's next write (`Replay.takeUnsaved`) and writes what is left before the next call executes.
   *
   * Calls must be issued in a deterministic order (the DeepNote loop is sequential per question), and retries belong
   * inside `execute`: each `call` takes the next `seq`.
   */
  readonly replaying: (
    runId: string,
    itemId: string,
    options?: { readonly persist?: PersistMode }
  ) => Effect.Effect<Replay, StoreError>
}

const TotalsRow = Schema.Struct({
  item_id: Schema.String,
  calls: DbInt,
  llm_calls: DbInt,
  prompt_tokens: DbInt,
  completion_tokens: DbInt,
  latency_ms: DbNumber
})

export class Journal extends Context.Tag("@deepnote-rag/store/Journal")<Journal, JournalService>() {
  static readonly make: Effect.Effect<JournalService, never, SqlClient.SqlClient> = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { findAll, transaction } = makeQueries(sql)
    const insertEntries = makeInsertEntries(sql)
    const refs = makePassageRefs(sql)
    const selectEntries = findAll({
      table: "journal",
      action: "reading the journal",
      Request: Schema.Struct({ runId: Schema.String, itemId: Schema.String }),
      Result: JournalRow,
      execute: ({ itemId, runId }) =>
        sql`SELECT * FROM journal WHERE run_id = ${runId} AND item_id = ${itemId} ORDER BY seq`
    })
    const selectTotals = findAll({
      table: "journal",
      action: "summing the journal",
      Request: Schema.String,
      Result: TotalsRow,
      execute: (runId) =>
        sql`SELECT item_id, count(*) AS calls,
          sum(CASE WHEN kind <> 'retrieve' THEN 1 ELSE 0 END) AS llm_calls,
          coalesce(sum(prompt_tokens), 0) AS prompt_tokens,
          coalesce(sum(completion_tokens), 0) AS completion_tokens,
          coalesce(sum(latency_ms), 0) AS latency_ms
        FROM journal WHERE run_id = ${runId} GROUP BY item_id ORDER BY item_id${byteOrder(sql)}`
    })
    const entries = Effect.fn("Journal.entries")(function*(runId: string, itemId: string) {
      yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId, "deepnote.item.id": itemId })
      const rows = yield* selectEntries({ runId, itemId })
      const responses = yield* refs.hydrate(runId, rows.map(() => itemId), rows.map((r) => r.response))
      return rows.map((r, i) => toJournalEntry({ ...r, response: responses[i] }))
    })
    const appendAll = Effect.fn("Journal.appendAll")(function*(batch: ReadonlyArray<JournalAppend>) {
      yield* insertEntries(batch).pipe(transaction("writing the journal"))
    })
    const append = Effect.fn("Journal.append")(function*(entry: JournalAppend) {
      yield* Effect.annotateCurrentSpan({
        "deepnote.run.id": entry.runId,
        "deepnote.item.id": entry.itemId,
        "deepnote.journal.seq": entry.seq
      })
      yield* insertEntries([entry]).pipe(transaction("writing the journal"))
    })
    const totals = Effect.fn("Journal.totals")(function*(runId: string) {
      yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId })
      return (yield* selectTotals(runId)).map((r): JournalTotals => ({
        itemId: r.item_id,
        calls: r.calls,
        llmCalls: r.llm_calls,
        promptTokens: r.prompt_tokens,
        completionTokens: r.completion_tokens,
        latencyMs: r.latency_ms
      }))
    })
    const replaying = Effect.fn("Journal.replaying")(function*(
      runId: string,
      itemId: string,
      options?: { readonly persist?: PersistMode }
    ) {
      const stored = yield* entries(runId, itemId)
      return yield* makeReplay({ runId, itemId, stored, persist: options?.persist ?? "each", append, appendAll })
    })
    return Journal.of({ entries, append, appendAll, totals, replaying })
  })

  static readonly layer: Layer.Layer<Journal, never, SqlClient.SqlClient> = Layer.effect(Journal, Journal.make)
}
