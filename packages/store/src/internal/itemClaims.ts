import { Question } from "@deepnote-rag/core"
import type { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { ItemNotFound, RunNotFound, StoreError } from "../Domain/Errors.js"
import { ItemClaim } from "../Domain/Item.js"
import { ItemKey, type ItemLookups } from "./itemRows.js"
import { makeQueries } from "./query.js"
import { nowIso } from "./sql.js"
import { storedJson } from "./storedJson.js"

/**
 * Items taken by queue jobs (`job_id`): a claim marks an item running for one job (a pending item, the same job's own
 * again, or a failed one for a new job), a release gives a running item back to the queue.
 */
export const makeItemClaims = (
  sql: SqlClient.SqlClient,
  { notFound, selectItem }: ItemLookups
) => {
  const { execute, findOne } = makeQueries(sql)

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

  return {
    claimItem,
    releaseItem: (runId: string, itemId: string, jobId: string) => release({ runId, itemId, jobId })
  }
}
