import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { JournalMismatch, type StoreError } from "../Domain/Errors.js"
import { JournalEntry, Usage } from "../Domain/JournalEntry.js"
import { type Dehydrated, dehydrateValues } from "./dehydrateValues.js"
import { makePassageRefs } from "./passageRefs.js"
import { makeQueries } from "./query.js"
import { chunks, now, orUndefined } from "./sql.js"
import { StoredJsonValue } from "./storedJson.js"

/** What a caller supplies to journal a call; the store adds `createdAt`. */
export interface JournalAppend {
  readonly runId: string
  readonly itemId: string
  readonly seq: number
  readonly kind: string
  readonly requestHash: string
  readonly response: unknown
  readonly usage?: Usage | undefined
  readonly latencyMs: number
}

export const JournalRow = Schema.Struct({
  run_id: Schema.String,
  item_id: Schema.String,
  seq: Schema.Int,
  kind: Schema.String,
  request_hash: Schema.String,
  response: StoredJsonValue,
  usage: Schema.NullOr(Schema.parseJson(Usage)),
  latency_ms: Schema.Number,
  created_at: Schema.Date
})

/** A `journal` row as written: the row plus the token counts that `Journal.totals` sums. */
export const NewEntry = Schema.Struct({
  ...JournalRow.fields,
  prompt_tokens: Schema.NullOr(Schema.Int),
  completion_tokens: Schema.NullOr(Schema.Int)
})

const Key = Schema.Struct({ run_id: Schema.String, item_id: Schema.String, seq: Schema.Int })
const Stored = Schema.Struct({ ...Key.fields, kind: Schema.String, request_hash: Schema.String })

/** A `journal` row as a `JournalEntry`. */
export const toJournalEntry = (r: typeof JournalRow.Type): JournalEntry =>
  new JournalEntry({
    runId: r.run_id,
    itemId: r.item_id,
    seq: r.seq,
    kind: r.kind,
    requestHash: r.request_hash,
    response: r.response,
    usage: orUndefined(r.usage),
    latencyMs: r.latency_ms,
    createdAt: r.created_at
  })

/**
 * The rows of `entries` as written, their responses' passages and long texts stored once per run and referred to
 * (`dehydrateValues`), with the passage and text rows to write first.
 */
export const newJournalRows = (
  entries: ReadonlyArray<JournalAppend>,
  createdAt: Date
): { readonly rows: ReadonlyArray<typeof NewEntry.Type>; readonly refs: Omit<Dehydrated, "stored"> } => {
  const responses = new Map<JournalAppend, unknown>()
  const byRun = new Map<string, Array<JournalAppend>>()
  for (const e of entries) {
    const group = byRun.get(e.runId)
    if (group === undefined) byRun.set(e.runId, [e])
    else group.push(e)
  }
  const passages: Array<Dehydrated["passages"][number]> = []
  const texts: Array<Dehydrated["texts"][number]> = []
  for (const [runId, group] of byRun) {
    const dehydrated = dehydrateValues(runId, group.map((e) => e.response))
    group.forEach((e, i) => responses.set(e, dehydrated.stored[i]))
    passages.push(...dehydrated.passages)
    texts.push(...dehydrated.texts)
  }
  const rows = entries.map((e) => ({
    run_id: e.runId,
    item_id: e.itemId,
    seq: e.seq,
    kind: e.kind,
    request_hash: e.requestHash,
    response: responses.get(e),
    usage: e.usage ?? null,
    prompt_tokens: e.usage?.promptTokens ?? null,
    completion_tokens: e.usage?.completionTokens ?? null,
    latency_ms: e.latencyMs,
    created_at: createdAt
  }))
  return { rows, refs: { passages, texts } }
}

/** A journaled entry at the same position whose kind or request hash differs: the inputs changed since. */
export const journalMismatch = (
  row: typeof NewEntry.Type,
  stored: { readonly kind: string; readonly request_hash: string }
) =>
  new JournalMismatch({
    runId: row.run_id,
    itemId: row.item_id,
    seq: row.seq,
    kind: row.kind,
    requestHash: row.request_hash,
    storedKind: stored.kind,
    storedHash: stored.request_hash
  })

const keyOf = (k: typeof Key.Type) => `${k.run_id}\u0000${k.item_id}\u0000${k.seq}`

/**
 * Inserts entries with multi-row inserts. An entry whose position is already journaled with the same kind and request
 * hash is skipped (appends are idempotent); a different one fails with `JournalMismatch`. Run inside a transaction so
 * a mismatch leaves nothing behind.
 */
export const makeInsertEntries = (sql: SqlClient.SqlClient) => {
  const { findAll } = makeQueries(sql)
  const refs = makePassageRefs(sql)
  const insert = findAll({
    table: "journal",
    action: "writing the journal",
    Request: Schema.Array(NewEntry),
    Result: Key,
    execute: (rows) =>
      sql`INSERT INTO journal ${sql.insert(rows)} ON CONFLICT (run_id, item_id, seq) DO NOTHING
        RETURNING run_id, item_id, seq`
  })
  const stored = findAll({
    table: "journal",
    action: "reading the journal",
    Request: Schema.Array(Key),
    Result: Stored,
    execute: (keys) =>
      sql`SELECT run_id, item_id, seq, kind, request_hash FROM journal WHERE ${
        sql.or(keys.map((k) => sql`(run_id = ${k.run_id} AND item_id = ${k.item_id} AND seq = ${k.seq})`))
      }`
  })

  return (entries: ReadonlyArray<JournalAppend>): Effect.Effect<void, JournalMismatch | StoreError> =>
    Effect.gen(function*() {
      const { refs: referred, rows: all } = newJournalRows(entries, yield* now)
      // each entry's passages are stored once for its run, and referred to by its response
      yield* refs.write(referred)
      for (const rows of chunks(all)) {
        // the first row of each key was inserted unless the key was already journaled; later duplicates were skipped
        const inserted = new Set((yield* insert(rows)).map(keyOf))
        const skipped = rows.filter((row) => !inserted.delete(keyOf(row)))
        if (skipped.length === 0) continue
        const existing = new Map((yield* stored(skipped)).map((row) => [keyOf(row), row]))
        for (const row of skipped) {
          const found = existing.get(keyOf(row))
          if (found !== undefined && (found.kind !== row.kind || found.request_hash !== row.request_hash)) {
            return yield* journalMismatch(row, found)
          }
        }
      }
    })
}
