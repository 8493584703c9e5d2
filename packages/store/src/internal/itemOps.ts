import { PipelineResult, Question } from "@deepnote/core"
import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { ItemNotFound, type JournalMismatch, type RunNotFound, type StoreError } from "../Domain/Errors.js"
import { ItemError, ItemRecord, ItemStatus, type PendingItem } from "../Domain/Item.js"
import type { ItemCounts } from "../Domain/Run.js"
import { insertEntries, type JournalAppend } from "./journalRows.js"
import { decodeRowWith, fromJson, nowIso, optionalDate, sqlFailure, toJson } from "./sql.js"

const ItemRow = Schema.Struct({
  run_id: Schema.String,
  item_id: Schema.String,
  seq: Schema.Int,
  status: ItemStatus,
  attempts: Schema.Int,
  question: Schema.String,
  result: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  started_at: Schema.NullOr(Schema.String),
  finished_at: Schema.NullOr(Schema.String),
  elapsed_ms: Schema.NullOr(Schema.Number)
})

const decodeRow = decodeRowWith(ItemRow, "item row")
const decodeQuestion = fromJson(Question, "question")
const decodeResult = fromJson(PipelineResult, "result")
const decodeError = fromJson(ItemError, "item error")
const encodeQuestion = toJson(Question)
const encodeResult = toJson(PipelineResult)
const encodeError = toJson(ItemError)

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

const itemRecord = (row: unknown) =>
  Effect.gen(function*() {
    const r = yield* decodeRow(row)
    return new ItemRecord({
      runId: r.run_id,
      itemId: r.item_id,
      seq: r.seq,
      status: r.status,
      attempts: r.attempts,
      question: yield* decodeQuestion(r.question),
      result: r.result === null ? undefined : yield* decodeResult(r.result),
      error: r.error === null ? undefined : yield* decodeError(r.error),
      startedAt: optionalDate(r.started_at),
      finishedAt: optionalDate(r.finished_at),
      elapsedMs: r.elapsed_ms ?? undefined
    })
  })

/** Item-level operations over the `items` table; `runExists` tells RunNotFound from ItemNotFound. */
export const makeItemOps = (
  sql: SqlClient.SqlClient,
  runExists: (runId: string) => Effect.Effect<void, RunNotFound | StoreError>
) => {
  const notFound = (runId: string, itemId: string) =>
    Effect.zipRight(runExists(runId), Effect.fail(new ItemNotFound({ runId, itemId })))

  const addItems = (runId: string, questions: ReadonlyArray<Question>) =>
    Effect.gen(function*() {
      yield* runExists(runId)
      const rows = yield* sql<
        { next: number }
      >`SELECT coalesce(max(seq) + 1, 0) AS next FROM items WHERE run_id = ${runId}`
      let seq = rows[0]?.next ?? 0
      let added = 0
      for (const question of questions) {
        const inserted = yield* sql`INSERT INTO items ${
          sql.insert({ run_id: runId, item_id: question.id, seq, question: yield* encodeQuestion(question) })
        } ON CONFLICT (run_id, item_id) DO NOTHING RETURNING seq`
        if (inserted.length > 0) {
          added++
          seq++
        }
      }
      return { added, skipped: questions.length - added }
    }).pipe(sql.withTransaction, sqlFailure("adding items"))

  const pendingItems = (runId: string, options: { readonly includeFailed?: boolean } = {}) =>
    Effect.gen(function*() {
      yield* runExists(runId)
      const statuses = options.includeFailed ? ["pending", "running", "failed"] : ["pending", "running"]
      const rows = yield* sql`SELECT * FROM items WHERE run_id = ${runId} AND ${
        sql.in("status", statuses)
      } ORDER BY seq`
      return yield* Effect.forEach(rows, (row) =>
        Effect.map(itemRecord(row), (r): PendingItem => ({
          itemId: r.itemId,
          seq: r.seq,
          status: r.status,
          attempts: r.attempts,
          question: r.question
        })))
    }).pipe(sqlFailure("reading pending items"))

  const markItemRunning = (runId: string, itemId: string) =>
    Effect.gen(function*() {
      const now = yield* nowIso
      const rows = yield* sql`UPDATE items SET status = 'running', attempts = attempts + 1, started_at = ${now},
        finished_at = NULL WHERE run_id = ${runId} AND item_id = ${itemId} RETURNING seq`
      if (rows.length === 0) return yield* notFound(runId, itemId)
    }).pipe(sqlFailure("marking an item running"))

  const finish = (outcome: ItemOutcome, status: "done" | "failed", result: string | null, error: string | null) =>
    Effect.gen(function*() {
      const now = yield* nowIso
      const rows = yield* sql`UPDATE items SET status = ${status}, result = ${result}, error = ${error},
        finished_at = ${now}, elapsed_ms = ${outcome.elapsedMs ?? null}
        WHERE run_id = ${outcome.runId} AND item_id = ${outcome.itemId} RETURNING seq`
      if (rows.length === 0) return yield* notFound(outcome.runId, outcome.itemId)
      yield* insertEntries(sql, outcome.journal ?? [])
    }).pipe(sql.withTransaction)

  const completeItem = (
    outcome: ItemOutcome & { readonly result: PipelineResult }
  ): Effect.Effect<void, RunNotFound | ItemNotFound | JournalMismatch | StoreError> =>
    Effect.flatMap(encodeResult(outcome.result), (result) => finish(outcome, "done", result, null)).pipe(
      sqlFailure("completing an item")
    )

  const failItem = (
    outcome: ItemOutcome & { readonly error: ItemError }
  ): Effect.Effect<void, RunNotFound | ItemNotFound | JournalMismatch | StoreError> =>
    Effect.flatMap(encodeError(outcome.error), (error) => finish(outcome, "failed", null, error)).pipe(
      sqlFailure("failing an item")
    )

  const itemCounts = (runId: string): Effect.Effect<ItemCounts, RunNotFound | StoreError> =>
    Effect.gen(function*() {
      yield* runExists(runId)
      const rows = yield* sql<{ status: string; n: number }>`SELECT status, count(*) AS n FROM items
        WHERE run_id = ${runId} GROUP BY status`
      const get = (status: string) => rows.find((r) => r.status === status)?.n ?? 0
      const counts = { pending: get("pending"), running: get("running"), done: get("done"), failed: get("failed") }
      return { total: counts.pending + counts.running + counts.done + counts.failed, ...counts }
    }).pipe(sqlFailure("counting items"))

  const getItem = (runId: string, itemId: string) =>
    Effect.gen(function*() {
      const rows = yield* sql`SELECT * FROM items WHERE run_id = ${runId} AND item_id = ${itemId}`
      if (rows[0] === undefined) return yield* notFound(runId, itemId)
      return yield* itemRecord(rows[0])
    }).pipe(sqlFailure("reading an item"))

  const resultsPage = (runId: string, options: ResultsPageOptions = {}) =>
    Effect.gen(function*() {
      yield* runExists(runId)
      const rows = yield* sql`SELECT * FROM items WHERE run_id = ${runId} AND seq > ${options.afterSeq ?? -1}
        AND ${sql.in("status", options.statuses ?? ["done", "failed"])} ORDER BY seq LIMIT ${options.limit ?? 500}`
      return yield* Effect.forEach(rows, itemRecord)
    }).pipe(sqlFailure("reading results"))

  return { addItems, pendingItems, markItemRunning, completeItem, failItem, itemCounts, getItem, resultsPage }
}
