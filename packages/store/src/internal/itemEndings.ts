import type { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { ItemNotFound, JournalMismatch, RunNotFound, StoreError } from "../Domain/Errors.js"
import { ItemError, ItemResult } from "../Domain/Item.js"
import { type DirectOutcome, finishDirect } from "./directItems.js"
import { ItemKey, type ItemLookups, Seq } from "./itemRows.js"
import { type JournalAppend, makeInsertEntries } from "./journalRows.js"
import { makePassageRefs } from "./passageRefs.js"
import { makeQueries } from "./query.js"
import { now, nowIso } from "./sql.js"
import type { SqliteDirectService } from "./sqliteDirect.js"
import { StoredJsonValue } from "./storedJson.js"

const encodeResult = Schema.encode(ItemResult)
const encodeResultSync = Schema.encodeSync(ItemResult)
const encodeError = Schema.encodeSync(Schema.parseJson(ItemError))

const Outcome = Schema.Struct({
  ...ItemKey.fields,
  status: Schema.Literal("done", "failed"),
  result: Schema.NullOr(StoredJsonValue),
  error: Schema.NullOr(Schema.parseJson(ItemError)),
  now: Schema.String,
  elapsedMs: Schema.NullOr(Schema.Number)
})

/** How an item ends: done with its result, or failed with its error. */
interface Ending {
  readonly status: "done" | "failed"
  readonly result: ItemResult | null
  readonly error: ItemError | null
}

/** How an item ended, with the journal entries not yet written (stored in the same transaction). */
export interface ItemOutcome {
  readonly runId: string
  readonly itemId: string
  readonly journal?: ReadonlyArray<JournalAppend> | undefined
  /** Wall time of this attempt. */
  readonly elapsedMs?: number | undefined
}

/**
 * An item's end, done or failed, with its last journal entries, in one transaction: through `@effect/sql` (Postgres)
 * or as one synchronous SQLite transaction (`directItems.ts`). A question is done once: a second completion (two
 * workers that raced on an expired job lock) changes nothing.
 */
export const makeItemEndings = (
  sql: SqlClient.SqlClient,
  { direct, notFound, selectItem }: ItemLookups & {
    /** SQLite's synchronous write path (`directItems.ts`); none on Postgres. */
    readonly direct: Option.Option<SqliteDirectService>
  }
) => {
  const { findOne, sqlFailure, transaction } = makeQueries(sql)
  const insertEntries = makeInsertEntries(sql)
  const refs = makePassageRefs(sql)

  const saveOutcome = findOne({
    table: "items",
    action: "finishing an item",
    Request: Outcome,
    Result: Seq,
    execute: (o) =>
      sql`UPDATE items SET status = ${o.status}, result = ${o.result}, error = ${o.error}, finished_at = ${o.now},
        elapsed_ms = ${o.elapsedMs}
        WHERE run_id = ${o.runId} AND item_id = ${o.itemId} AND status <> 'done' RETURNING seq`
  })

  /** `finish` on SQLite: one synchronous transaction (`directItems.ts`). */
  const finishNow = (
    db: SqliteDirectService,
    outcome: ItemOutcome,
    ending: Ending
  ) =>
    Effect.gen(function*() {
      const { itemId, runId } = outcome
      const createdAt = yield* now
      // encoded before the transaction: a result that does not encode is a defect, as on the other path (inside the
      // transaction a throw would be reported as the database's failure)
      const written: DirectOutcome = {
        runId,
        itemId,
        status: ending.status,
        result: ending.result === null ? null : encodeResultSync(ending.result),
        error: ending.error === null ? null : encodeError(ending.error),
        now: createdAt.toISOString(),
        createdAt,
        elapsedMs: outcome.elapsedMs ?? null,
        journal: outcome.journal ?? []
      }
      const finished = yield* db.transaction((d) => finishDirect(d, written)).pipe(
        Effect.catchTag("SqlError", sqlFailure("finishing an item"))
      )
      if (finished === "missing") return yield* notFound(runId, itemId)
    })

  const finish = (
    outcome: ItemOutcome,
    ending: Ending
  ): Effect.Effect<void, RunNotFound | ItemNotFound | JournalMismatch | StoreError> =>
    Option.isSome(direct) ? finishNow(direct.value, outcome, ending) : Effect.gen(function*() {
      const { itemId, runId } = outcome
      const now = yield* nowIso
      const result = ending.result === null
        ? null
        : (yield* refs.dehydrate(runId, [yield* Effect.orDie(encodeResult(ending.result))]))[0]
      const updated = yield* saveOutcome({
        runId,
        itemId,
        ...ending,
        result,
        now,
        elapsedMs: outcome.elapsedMs ?? null
      })
      if (Option.isNone(updated)) {
        if (Option.isSome(yield* selectItem({ runId, itemId }))) return // already done
        return yield* notFound(runId, itemId)
      }
      yield* insertEntries(outcome.journal ?? [])
    }).pipe(transaction("finishing an item"))

  return {
    completeItem: (outcome: ItemOutcome & { readonly result: ItemResult }) =>
      finish(outcome, { status: "done", result: outcome.result, error: null }),
    failItem: (outcome: ItemOutcome & { readonly error: ItemError }) =>
      finish(outcome, { status: "failed", result: null, error: outcome.error })
  }
}
