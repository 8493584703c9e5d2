import { AlignItemResult, firstDecodeIssue, Question } from "@deepnote-rag/core"
import type { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { ItemNotFound, type JournalMismatch, RunNotFound, StoreError } from "../Domain/Errors.js"
import { ItemClaim, ItemError, ItemRecord, ItemResult, ItemStatus, type PendingItem } from "../Domain/Item.js"
import type { ItemCounts } from "../Domain/Run.js"
import { makeAddItems } from "./addItems.js"
import { type DirectOutcome, finishDirect, markRunningDirect } from "./directItems.js"
import { type JournalAppend, makeInsertEntries } from "./journalRows.js"
import { makePassageRefs } from "./passageRefs.js"
import { makeQueries } from "./query.js"
import { DbInt, now, nowIso, orUndefined } from "./sql.js"
import type { SqliteDirectService } from "./sqliteDirect.js"
import { storedJson, StoredJsonValue } from "./storedJson.js"

const ItemRow = Schema.Struct({
  run_id: Schema.String,
  item_id: Schema.String,
  seq: Schema.Int,
  status: ItemStatus,
  attempts: Schema.Int,
  question: storedJson(Question),
  result: Schema.NullOr(storedJson(ItemResult)),
  error: Schema.NullOr(Schema.parseJson(ItemError)),
  started_at: Schema.NullOr(Schema.Date),
  finished_at: Schema.NullOr(Schema.Date),
  elapsed_ms: Schema.NullOr(Schema.Number)
})

/** An `items` row as read: `result` is the encoded result with its passages referred to (`passageRefs.ts`). */
const RawItemRow = Schema.Struct({ ...ItemRow.fields, result: Schema.NullOr(StoredJsonValue) })

const decodeResult = Schema.decodeUnknown(ItemResult)
const encodeResult = Schema.encode(ItemResult)
const encodeResultSync = Schema.encodeSync(ItemResult)
const encodeError = Schema.encodeSync(Schema.parseJson(ItemError))

const toItemRecord = (r: typeof ItemRow.Type): ItemRecord =>
  new ItemRecord({
    runId: r.run_id,
    itemId: r.item_id,
    seq: r.seq,
    status: r.status,
    attempts: r.attempts,
    question: r.question,
    ...(r.result === null ? {} : r.result instanceof AlignItemResult ? { align: r.result } : { result: r.result }),
    error: orUndefined(r.error),
    startedAt: orUndefined(r.started_at),
    finishedAt: orUndefined(r.finished_at),
    elapsedMs: orUndefined(r.elapsed_ms)
  })

const ItemKey = Schema.Struct({ runId: Schema.String, itemId: Schema.String })
const Outcome = Schema.Struct({
  ...ItemKey.fields,
  status: Schema.Literal("done", "failed"),
  result: Schema.NullOr(StoredJsonValue),
  error: Schema.NullOr(Schema.parseJson(ItemError)),
  now: Schema.String,
  elapsedMs: Schema.NullOr(Schema.Number)
})
const Page = Schema.Struct({
  runId: Schema.String,
  statuses: Schema.Array(ItemStatus),
  afterSeq: Schema.Int,
  limit: Schema.optional(Schema.Int)
})
const Seq = Schema.Struct({ seq: Schema.Int })

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

export interface ResultsPageOptions {
  /** Items after this `seq` (exclusive); default from the start. */
  readonly afterSeq?: number | undefined
  /** Default 500. */
  readonly limit?: number | undefined
  /** Default `["done", "failed"]`. */
  readonly statuses?: ReadonlyArray<ItemStatus> | undefined
}

/** Item-level operations over the `items` table; `runExists` tells RunNotFound from ItemNotFound. */
export const makeItemOps = (
  sql: SqlClient.SqlClient,
  runExists: (runId: string) => Effect.Effect<void, RunNotFound | StoreError>,
  /** SQLite's synchronous write path (`directItems.ts`); none on Postgres. */
  direct: Option.Option<SqliteDirectService> = Option.none()
) => {
  const { execute, findAll, findOne, sqlFailure, transaction } = makeQueries(sql)
  const insertEntries = makeInsertEntries(sql)
  const refs = makePassageRefs(sql)
  /** Rows with their results' passages put back, decoded. */
  const decodeRows = (runId: string, rows: ReadonlyArray<typeof RawItemRow.Type>) =>
    Effect.gen(function*() {
      const results = yield* refs.hydrate(runId, rows.map((r) => r.item_id), rows.map((r) => r.result))
      return yield* Effect.forEach(rows, (row, i) =>
        results[i] === null
          ? Effect.succeed({ ...row, result: null })
          : decodeResult(results[i]).pipe(
            Effect.map((result): typeof ItemRow.Type => ({ ...row, result })),
            Effect.mapError((e) =>
              new StoreError({
                message: `a stored items row does not decode (reading items): ${firstDecodeIssue(e, "row")}`
              })
            )
          ))
    })
  const notFound = (runId: string, itemId: string) =>
    Effect.zipRight(runExists(runId), Effect.fail(new ItemNotFound({ runId, itemId })))

  const addItems = makeAddItems(sql)

  const selectItems = findAll({
    table: "items",
    action: "reading items",
    Request: Page,
    Result: RawItemRow,
    execute: (p) =>
      sql`SELECT * FROM items WHERE run_id = ${p.runId} AND seq > ${p.afterSeq} AND ${sql.in("status", p.statuses)}
        ORDER BY seq${p.limit === undefined ? sql.literal("") : sql` LIMIT ${p.limit}`}`
  })

  const pendingItems = (runId: string, options: { readonly includeFailed?: boolean } = {}) =>
    Effect.gen(function*() {
      yield* runExists(runId)
      const statuses: ReadonlyArray<ItemStatus> = options.includeFailed
        ? ["pending", "running", "failed"]
        : ["pending", "running"]
      const rows = yield* selectItems({ runId, statuses, afterSeq: -1 })
      return rows.map((r): PendingItem => ({
        itemId: r.item_id,
        seq: r.seq,
        status: r.status,
        attempts: r.attempts,
        question: r.question
      }))
    })

  const markRunning = findOne({
    table: "items",
    action: "marking an item running",
    Request: Schema.Struct({ ...ItemKey.fields, now: Schema.String }),
    Result: Seq,
    execute: (k) =>
      sql`UPDATE items SET status = 'running', attempts = attempts + 1, started_at = ${k.now}, finished_at = NULL
        WHERE run_id = ${k.runId} AND item_id = ${k.itemId} RETURNING seq`
  })

  const markItemRunning = (runId: string, itemId: string) =>
    Effect.gen(function*() {
      const now = yield* nowIso
      if (Option.isSome(direct)) {
        const found = yield* direct.value.transaction((db) => markRunningDirect(db, { runId, itemId, now })).pipe(
          Effect.catchTag("SqlError", sqlFailure("marking an item running"))
        )
        if (!found) return yield* notFound(runId, itemId)
        return
      }
      const updated = yield* markRunning({ runId, itemId, now })
      if (Option.isNone(updated)) return yield* notFound(runId, itemId)
    })

  // A question is done once: a second completion (two workers that raced on an expired job lock) changes nothing.
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

  const completeItem = (outcome: ItemOutcome & { readonly result: ItemResult }) =>
    finish(outcome, { status: "done", result: outcome.result, error: null })

  const failItem = (outcome: ItemOutcome & { readonly error: ItemError }) =>
    finish(outcome, { status: "failed", result: null, error: outcome.error })

  const countByStatus = findAll({
    table: "items",
    action: "counting items",
    Request: Schema.String,
    Result: Schema.Struct({ status: ItemStatus, n: DbInt }),
    execute: (runId) => sql`SELECT status, count(*) AS n FROM items WHERE run_id = ${runId} GROUP BY status`
  })

  const itemCounts = (runId: string): Effect.Effect<ItemCounts, RunNotFound | StoreError> =>
    Effect.gen(function*() {
      yield* runExists(runId)
      const rows = yield* countByStatus(runId)
      const get = (status: ItemStatus) => rows.find((r) => r.status === status)?.n ?? 0
      const counts = { pending: get("pending"), running: get("running"), done: get("done"), failed: get("failed") }
      return { total: counts.pending + counts.running + counts.done + counts.failed, ...counts }
    })

  const selectItem = findOne({
    table: "items",
    action: "reading an item",
    Request: ItemKey,
    Result: RawItemRow,
    execute: (k) => sql`SELECT * FROM items WHERE run_id = ${k.runId} AND item_id = ${k.itemId}`
  })

  const getItem = (runId: string, itemId: string) =>
    Effect.flatMap(
      selectItem({ runId, itemId }),
      Option.match({
        onNone: () => notFound(runId, itemId),
        onSome: (row) => Effect.map(decodeRows(runId, [row]), ([decoded]) => toItemRecord(decoded!))
      })
    )

  const resultsPage = (runId: string, options: ResultsPageOptions = {}) =>
    Effect.gen(function*() {
      yield* runExists(runId)
      const rows = yield* selectItems({
        runId,
        statuses: options.statuses ?? ["done", "failed"],
        afterSeq: options.afterSeq ?? -1,
        limit: options.limit ?? 500
      })
      return (yield* decodeRows(runId, rows)).map(toItemRecord)
    })

  const claim = findOne({
    table: "items",
    action: "claiming an item",
    Request: Schema.Struct({ ...ItemKey.fields, jobId: Schema.String, now: Schema.String }),
    Result: Schema.Struct({ seq: Schema.Int, attempts: Schema.Int, question: storedJson(Question) }),
    execute: (c) =>
      sql`UPDATE items SET status = 'running', attempts = attempts + 1, job_id = ${c.jobId}, started_at = ${c.now},
        finished_at = NULL
        WHERE run_id = ${c.runId} AND item_id = ${c.itemId} AND (status = 'pending'
          OR (status = 'running' AND (job_id IS NULL OR job_id = ${c.jobId}))
          OR (status = 'failed' AND (job_id IS NULL OR job_id <> ${c.jobId})))
        RETURNING seq, attempts, question`
  })

  const claimItem = (
    runId: string,
    itemId: string,
    jobId: string
  ): Effect.Effect<ItemClaim, ItemNotFound | RunNotFound | StoreError> =>
    Effect.gen(function*() {
      const claimed = yield* claim({ runId, itemId, jobId, now: yield* nowIso })
      if (Option.isSome(claimed)) {
        const { attempts, question, seq } = claimed.value
        // a first attempt has logged nothing yet; a later one resumes what an earlier one started
        return ItemClaim.Claimed({
          item: { itemId, seq, status: attempts > 1 ? "running" : "pending", attempts, question }
        })
      }
      const current = yield* selectItem({ runId, itemId })
      if (Option.isNone(current)) return yield* notFound(runId, itemId)
      return ItemClaim.Taken({ status: current.value.status })
    })

  const release = execute({
    table: "items",
    action: "releasing an item",
    Request: Schema.Struct({ ...ItemKey.fields, jobId: Schema.String }),
    execute: (r) =>
      sql`UPDATE items SET status = 'pending', job_id = NULL
        WHERE run_id = ${r.runId} AND item_id = ${r.itemId} AND status = 'running' AND job_id = ${r.jobId}`
  })

  const releaseItem = (runId: string, itemId: string, jobId: string) => release({ runId, itemId, jobId })

  return {
    addItems,
    pendingItems,
    markItemRunning,
    claimItem,
    releaseItem,
    completeItem,
    failItem,
    itemCounts,
    getItem,
    resultsPage
  }
}
