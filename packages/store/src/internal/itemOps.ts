import { firstDecodeIssue } from "@deepnote-rag/core"
import type { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { ItemNotFound, type RunNotFound, StoreError } from "../Domain/Errors.js"
import { ItemResult, ItemStatus, type PendingItem } from "../Domain/Item.js"
import type { ItemCounts } from "../Domain/Run.js"
import { makeAddItems } from "./addItems.js"
import { markRunningDirect } from "./directItems.js"
import { makeItemClaims } from "./itemClaims.js"
import { makeItemEndings } from "./itemEndings.js"
import { ItemKey, type ItemRow, RawItemRow, Seq, toItemRecord } from "./itemRows.js"
import { makePassageRefs } from "./passageRefs.js"
import { makeQueries } from "./query.js"
import { DbInt, nowIso } from "./sql.js"
import type { SqliteDirectService } from "./sqliteDirect.js"

export type { ItemOutcome } from "./itemEndings.js"

const decodeResult = Schema.decodeUnknown(ItemResult)

const Page = Schema.Struct({
  runId: Schema.String,
  statuses: Schema.Array(ItemStatus),
  afterSeq: Schema.Int,
  limit: Schema.optional(Schema.Int)
})

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
  const { findAll, findOne, sqlFailure } = makeQueries(sql)
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

  const endings = makeItemEndings(sql, { direct, notFound, selectItem })
  const claims = makeItemClaims(sql, { notFound, selectItem })

  return {
    addItems,
    pendingItems,
    markItemRunning,
    claimItem: claims.claimItem,
    releaseItem: claims.releaseItem,
    completeItem: endings.completeItem,
    failItem: endings.failItem,
    itemCounts,
    getItem,
    resultsPage
  }
}
