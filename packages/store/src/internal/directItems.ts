import { Either, Schema } from "effect"
import type { JournalMismatch, StoreError } from "../Domain/Errors.js"
import { dehydrateValues } from "./dehydrateValues.js"
import { writeJournalDirect, writeRefs } from "./directAppend.js"
import type { JournalAppend } from "./journalRows.js"
import type { SqliteDirectDatabase } from "./sqliteDirect.js"
import { StoredJsonValue } from "./storedJson.js"

/**
 * A question's two item writes as synchronous SQLite transactions (`SqliteDirect`), as `EventLog.append` is: the same
 * statements and stored bytes as the `@effect/sql` path (`itemOps.ts` marks running, `itemEndings.ts` finishes; Postgres
 * takes it). Through `@effect/sql`, finishing an item was ≈ 420 run-loop steps and marking it running ≈ 140
 * (`benchmarks/cpu`); here each is one.
 */

const markRunning = `UPDATE items SET status = 'running', attempts = attempts + 1, started_at = ?, finished_at = NULL
  WHERE run_id = ? AND item_id = ? RETURNING seq`
// a question is done once: a second completion (two workers that raced on an expired job lock) changes nothing
const saveOutcome = `UPDATE items SET status = ?, result = ?, error = ?, finished_at = ?, elapsed_ms = ?
  WHERE run_id = ? AND item_id = ? AND status <> 'done' RETURNING seq`
const itemExists = "SELECT 1 AS found FROM items WHERE run_id = ? AND item_id = ?"

const encodeStored = Schema.encodeSync(StoredJsonValue)

/** Marks an item running (one more attempt); false when the run has no such item. */
export const markRunningDirect = (
  db: SqliteDirectDatabase,
  item: { readonly runId: string; readonly itemId: string; readonly now: string }
): Either.Either<boolean> =>
  Either.right(db.statement(markRunning).get(item.now, item.runId, item.itemId) !== undefined)

/** How an item ends, its result and error already encoded (the result's passages are referred to here). */
export interface DirectOutcome {
  readonly runId: string
  readonly itemId: string
  readonly status: "done" | "failed"
  /** The encoded `ItemResult`, or null. */
  readonly result: unknown
  /** The encoded `ItemError` (JSON text), or null. */
  readonly error: string | null
  readonly now: string
  readonly createdAt: Date
  readonly elapsedMs: number | null
  readonly journal: ReadonlyArray<JournalAppend>
}

/**
 * Writes an item's outcome and its journal entries not yet written. `finished` when written, `already` when the item
 * was done before (nothing changes), `missing` when the run has no such item.
 */
export const finishDirect = (
  db: SqliteDirectDatabase,
  outcome: DirectOutcome
): Either.Either<"finished" | "already" | "missing", JournalMismatch | StoreError> => {
  const { itemId, runId } = outcome
  let result: Uint8Array | string | null = null
  if (outcome.result !== null) {
    const dehydrated = dehydrateValues(runId, [outcome.result])
    writeRefs(db, dehydrated)
    result = encodeStored(dehydrated.stored[0])
  }
  const updated = db.statement(saveOutcome).get(
    outcome.status,
    result,
    outcome.error,
    outcome.now,
    outcome.elapsedMs,
    runId,
    itemId
  )
  if (updated === undefined) {
    return Either.right(db.statement(itemExists).get(runId, itemId) === undefined ? "missing" : "already")
  }
  const journaled = writeJournalDirect(db, outcome.journal, outcome.createdAt, "finishing an item")
  return Either.isLeft(journaled) ? Either.left(journaled.left) : Either.right("finished")
}
