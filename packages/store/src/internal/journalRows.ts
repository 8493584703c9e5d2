import type { SqlClient, SqlError } from "@effect/sql"
import { Effect, Schema } from "effect"
import { JournalMismatch, type StoreError } from "../Domain/Errors.js"
import { JournalEntry, Usage } from "../Domain/JournalEntry.js"
import { decodeRowWith, fromJson, nowIso, toJson } from "./sql.js"

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
  response: Schema.String,
  usage: Schema.NullOr(Schema.String),
  latency_ms: Schema.Number,
  created_at: Schema.String
})

const decodeRow = decodeRowWith(JournalRow, "journal row")
const decodeResponse = fromJson(Schema.Unknown, "journal response")
const decodeUsage = fromJson(Usage, "journal usage")
const encodeResponse = toJson(Schema.Unknown)
const encodeUsage = toJson(Usage)

/** Decodes one `journal` row. */
export const journalEntryFromRow = (row: unknown): Effect.Effect<JournalEntry, StoreError> =>
  Effect.gen(function*() {
    const r = yield* decodeRow(row)
    return new JournalEntry({
      runId: r.run_id,
      itemId: r.item_id,
      seq: r.seq,
      kind: r.kind,
      requestHash: r.request_hash,
      response: yield* decodeResponse(r.response),
      usage: r.usage === null ? undefined : yield* decodeUsage(r.usage),
      latencyMs: r.latency_ms,
      createdAt: new Date(r.created_at)
    })
  })

/**
 * Inserts entries one by one. An entry whose position is already journaled with the same kind and request hash is
 * skipped (appends are idempotent); a different one fails with `JournalMismatch`. Run inside a transaction so a
 * mismatch leaves nothing behind.
 */
export const insertEntries = (sql: SqlClient.SqlClient, entries: ReadonlyArray<JournalAppend>) =>
  Effect.gen(function*() {
    const createdAt = yield* nowIso
    for (const e of entries) {
      const inserted = yield* sql<{ seq: number }>`INSERT INTO journal ${
        sql.insert({
          run_id: e.runId,
          item_id: e.itemId,
          seq: e.seq,
          kind: e.kind,
          request_hash: e.requestHash,
          response: yield* encodeResponse(e.response),
          usage: e.usage === undefined ? null : yield* encodeUsage(e.usage),
          latency_ms: e.latencyMs,
          created_at: createdAt
        })
      } ON CONFLICT (run_id, item_id, seq) DO NOTHING RETURNING seq`
      if (inserted.length > 0) continue
      const existing = yield* sql<{ kind: string; request_hash: string }>`SELECT kind, request_hash FROM journal
        WHERE run_id = ${e.runId} AND item_id = ${e.itemId} AND seq = ${e.seq}`
      const stored = existing[0]
      if (stored !== undefined && (stored.kind !== e.kind || stored.request_hash !== e.requestHash)) {
        return yield* new JournalMismatch({
          runId: e.runId,
          itemId: e.itemId,
          seq: e.seq,
          kind: e.kind,
          requestHash: e.requestHash,
          storedKind: stored.kind,
          storedHash: stored.request_hash
        })
      }
    }
  }) satisfies Effect.Effect<void, JournalMismatch | SqlError.SqlError | StoreError>
