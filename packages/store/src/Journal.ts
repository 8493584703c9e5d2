import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import type { JournalMismatch, StoreError } from "./Domain/Errors.js"
import type { JournalEntry, JournalTotals } from "./Domain/JournalEntry.js"
import { insertEntries, type JournalAppend, journalEntryFromRow } from "./internal/journalRows.js"
import { decodeRowWith, sqlFailure } from "./internal/sql.js"
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
   * `"on-complete"` buffers them for `RunStore.completeItem`/`failItem` (one write per item).
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
  calls: Schema.Int,
  llm_calls: Schema.Int,
  prompt_tokens: Schema.Int,
  completion_tokens: Schema.Int,
  latency_ms: Schema.Number
})
const decodeTotals = decodeRowWith(TotalsRow, "journal totals")

export class Journal extends Context.Tag("@deepnote/store/Journal")<Journal, JournalService>() {
  static readonly make = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const entries = Effect.fn("Journal.entries")(function*(runId: string, itemId: string) {
      yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId, "deepnote.item.id": itemId })
      const rows = yield* sql`SELECT * FROM journal WHERE run_id = ${runId} AND item_id = ${itemId} ORDER BY seq`.pipe(
        sqlFailure("reading the journal")
      )
      return yield* Effect.forEach(rows, journalEntryFromRow)
    })
    const appendAll = Effect.fn("Journal.appendAll")(function*(batch: ReadonlyArray<JournalAppend>) {
      yield* insertEntries(sql, batch).pipe(sql.withTransaction, sqlFailure("writing the journal"))
    })
    const append = Effect.fn("Journal.append")(function*(entry: JournalAppend) {
      yield* Effect.annotateCurrentSpan({
        "deepnote.run.id": entry.runId,
        "deepnote.item.id": entry.itemId,
        "deepnote.journal.seq": entry.seq
      })
      yield* insertEntries(sql, [entry]).pipe(sql.withTransaction, sqlFailure("writing the journal"))
    })
    const totals = Effect.fn("Journal.totals")(function*(runId: string) {
      yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId })
      const rows = yield* sql`SELECT item_id, count(*) AS calls,
          sum(kind != 'retrieve') AS llm_calls,
          coalesce(sum(json_extract(usage, '$.promptTokens')), 0) AS prompt_tokens,
          coalesce(sum(json_extract(usage, '$.completionTokens')), 0) AS completion_tokens,
          coalesce(sum(latency_ms), 0) AS latency_ms
        FROM journal WHERE run_id = ${runId} GROUP BY item_id ORDER BY item_id`.pipe(sqlFailure("summing the journal"))
      return yield* Effect.forEach(rows, (row) =>
        Effect.map(decodeTotals(row), (r): JournalTotals => ({
          itemId: r.item_id,
          calls: r.calls,
          llmCalls: r.llm_calls,
          promptTokens: r.prompt_tokens,
          completionTokens: r.completion_tokens,
          latencyMs: r.latency_ms
        })))
    })
    const replaying = Effect.fn("Journal.replaying")(function*(
      runId: string,
      itemId: string,
      options?: { readonly persist?: PersistMode }
    ) {
      const stored = yield* entries(runId, itemId)
      return yield* makeReplay({ runId, itemId, stored, persist: options?.persist ?? "each", append })
    })
    return Journal.of({ entries, append, appendAll, totals, replaying })
  })

  static readonly layer: Layer.Layer<Journal, never, SqlClient.SqlClient> = Layer.effect(Journal, Journal.make)
}
