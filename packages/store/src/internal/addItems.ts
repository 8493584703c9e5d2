import { Question } from "@deepnote-rag/core"
import type { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { RunNotFound } from "../Domain/Errors.js"
import { makeQueries } from "./query.js"
import { chunks } from "./sql.js"
import { storedJson } from "./storedJson.js"

const NewItem = Schema.Struct({
  run_id: Schema.String,
  item_id: Schema.String,
  seq: Schema.Int,
  question: storedJson(Question)
})

/**
 * `RunStore.addItems`: adds questions as `pending` items in one transaction, numbered after the existing ones from the
 * run's `next_item_seq`, with multi-row inserts of a few hundred rows. Known ids (and repeats) are skipped.
 */
export const makeAddItems = (sql: SqlClient.SqlClient) => {
  const { execute, findAll, findOne, transaction } = makeQueries(sql)
  // Locks the run row for the transaction (a no-op update: Postgres row-locks it, SQLite takes the write lock), so
  // concurrent `addItems` of one run number their items one after the other, never from the same `next_item_seq`.
  const lockNextSeq = findOne({
    table: "runs",
    action: "adding items",
    Request: Schema.String,
    Result: Schema.Struct({ next_item_seq: Schema.Int }),
    execute: (runId) => sql`UPDATE runs SET next_item_seq = next_item_seq WHERE id = ${runId} RETURNING next_item_seq`
  })
  const setNextSeq = execute({
    table: "runs",
    action: "adding items",
    Request: Schema.Struct({ runId: Schema.String, next: Schema.Int }),
    execute: ({ next, runId }) => sql`UPDATE runs SET next_item_seq = ${next} WHERE id = ${runId}`
  })
  const knownIds = findAll({
    table: "items",
    action: "adding items",
    Request: Schema.Struct({ runId: Schema.String, ids: Schema.Array(Schema.String) }),
    Result: Schema.Struct({ item_id: Schema.String }),
    execute: ({ ids, runId }) => sql`SELECT item_id FROM items WHERE run_id = ${runId} AND ${sql.in("item_id", ids)}`
  })
  const insertItems = execute({
    table: "items",
    action: "adding items",
    Request: Schema.Array(NewItem),
    execute: (rows) => sql`INSERT INTO items ${sql.insert(rows)}`
  })

  return (runId: string, questions: ReadonlyArray<Question>) =>
    Effect.gen(function*() {
      const locked = yield* lockNextSeq(runId)
      if (Option.isNone(locked)) return yield* new RunNotFound({ runId })
      let next = locked.value.next_item_seq
      const seen = new Set<string>()
      for (const batch of chunks(questions)) {
        const fresh = batch.filter((q) => !seen.has(q.id) && seen.add(q.id))
        if (fresh.length === 0) continue
        const known = new Set((yield* knownIds({ runId, ids: fresh.map((q) => q.id) })).map((r) => r.item_id))
        const rows = fresh.filter((q) => !known.has(q.id)).map((question, i) => ({
          run_id: runId,
          item_id: question.id,
          seq: next + i,
          question
        }))
        if (rows.length > 0) yield* insertItems(rows)
        next += rows.length
      }
      const added = next - locked.value.next_item_seq
      if (added > 0) yield* setNextSeq({ runId, next })
      return { added, skipped: questions.length - added }
    }).pipe(transaction("adding items"))
}
