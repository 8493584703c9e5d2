import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { StoreError } from "../Domain/Errors.js"
import { collectRefs, type Dehydrated, dehydrateValues, refKey, rewrite, textKey } from "./dehydrateValues.js"
import { NewPassageRow, NewTextRow, PassageRow, TextRow } from "./passageRows.js"
import { makeQueries } from "./query.js"
import { chunks } from "./sql.js"

/**
 * Reads and writes the passages and long texts that stored values refer to (`dehydrateValues.ts` says how and why):
 * rows written for the values a writer stores, references replaced by what they refer to for a reader.
 */
export interface PassageRefs {
  /**
   * The values as stored: each passage and long text replaced by a reference, their rows written for the run unless
   * there (run it inside the writer's transaction, so the references and the rows commit together).
   */
  readonly dehydrate: (
    runId: string,
    values: ReadonlyArray<unknown>
  ) => Effect.Effect<ReadonlyArray<unknown>, StoreError>
  /** Writes the passage and text rows of values dehydrated with `dehydrateValues` (those already there are kept). */
  readonly write: (rows: Omit<Dehydrated, "stored">) => Effect.Effect<void, StoreError>
  /**
   * The values as written: every reference replaced by what it refers to. `items[i]` is the item of `values[i]` (named
   * when something referred to is missing).
   */
  readonly hydrate: (
    runId: string,
    items: ReadonlyArray<string>,
    values: ReadonlyArray<unknown>
  ) => Effect.Effect<ReadonlyArray<unknown>, StoreError>
}

const Request = Schema.Struct({ runId: Schema.String, hashes: Schema.Array(Schema.String) })

export const makePassageRefs = (sql: SqlClient.SqlClient): PassageRefs => {
  const { execute, findAll } = makeQueries(sql)
  const insertPassages = execute({
    table: "passages",
    action: "storing passages",
    Request: Schema.Array(NewPassageRow),
    execute: (rows) => sql`INSERT INTO passages ${sql.insert(rows)} ON CONFLICT DO NOTHING`
  })
  const insertTexts = execute({
    table: "texts",
    action: "storing texts",
    Request: Schema.Array(NewTextRow),
    execute: (rows) => sql`INSERT INTO texts ${sql.insert(rows)} ON CONFLICT DO NOTHING`
  })
  const selectPassages = findAll({
    table: "passages",
    action: "reading passages",
    Request,
    Result: PassageRow,
    execute: ({ hashes, runId }) =>
      sql`SELECT run_id, hash, id, source, title, text FROM passages WHERE run_id = ${runId} AND ${
        sql.in("hash", hashes)
      }`
  })
  const selectTexts = findAll({
    table: "texts",
    action: "reading texts",
    Request,
    Result: TextRow,
    execute: ({ hashes, runId }) =>
      sql`SELECT run_id, hash, text FROM texts WHERE run_id = ${runId} AND ${sql.in("hash", hashes)}`
  })

  const write = (rows: Omit<Dehydrated, "stored">) =>
    Effect.gen(function*() {
      for (const batch of chunks(rows.passages)) yield* insertPassages(batch)
      for (const batch of chunks(rows.texts)) yield* insertTexts(batch)
    })

  const dehydrate = (runId: string, values: ReadonlyArray<unknown>) => {
    const dehydrated = dehydrateValues(runId, values)
    return Effect.as(write(dehydrated), dehydrated.stored)
  }

  const hydrate = (runId: string, items: ReadonlyArray<string>, values: ReadonlyArray<unknown>) =>
    Effect.gen(function*() {
      const passageHashes = new Set<string>()
      const textHashes = new Set<string>()
      for (const value of values) collectRefs(value, passageHashes, textHashes)
      if (passageHashes.size === 0 && textHashes.size === 0) return values
      const passages = new Map<string, PassageRow>()
      const texts = new Map<string, string>()
      for (const hashes of chunks([...passageHashes])) {
        for (const row of yield* selectPassages({ runId, hashes })) passages.set(row.hash, row)
      }
      for (const hashes of chunks([...textHashes])) {
        for (const row of yield* selectTexts({ runId, hashes })) texts.set(row.hash, row.text)
      }
      const out: Array<unknown> = []
      for (let i = 0; i < values.length; i++) {
        let missing: string | undefined
        out.push(rewrite(values[i], (object) => {
          const textHash = object[textKey]
          if (typeof textHash === "string") {
            const text = texts.get(textHash)
            if (text === undefined) missing = textHash
            return text ?? object
          }
          const hash = object[refKey]
          if (typeof hash !== "string") return undefined
          const row = passages.get(hash)
          if (row === undefined) {
            missing = hash
            return object
          }
          return { id: row.id, title: row.title, text: row.text, source: row.source, score: object.score }
        }))
        if (missing !== undefined) {
          return yield* new StoreError({
            message: `reading passages failed: passage or text ${missing} of item ${items[i]} (run ${runId}) is missing`
          })
        }
      }
      return out
    })

  return { dehydrate, write, hydrate }
}
