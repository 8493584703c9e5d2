import Database from "better-sqlite3"
import { Effect, type Scope } from "effect"
import type { IndexError } from "../Domain/Errors.js"
import type { AnalyzedPassage } from "./AnalyzedBatch.js"
import type { ProgressRow } from "./FtsQueries.js"
import { indexFailure } from "./IndexFailure.js"
import { MetaKey } from "./IndexSchema.js"

/**
 * The one measured bypass of `@effect/sql` in a collection: the ingest loop of new passages (two inserts per
 * passage) on prepared better-sqlite3 statements. On `benchmarks/retrieval/speed.mjs` `fts:100000` (medians of 7
 * interleaved runs, benchmarks/retrieval/sql-migration.json), the build took 5.9 s CPU this way against 7.1 s with
 * every insert through `SqlClient` (multi-row statements of 200 rows) and 5.7 s before the migration.
 * `SqliteClient` does not expose its connection, so this is a second connection to the same WAL file, opened on the
 * first such write. It writes only under the collection's write lock, in its own synchronous transaction, and reads
 * nothing the other connection is writing.
 */
export interface IngestFastPath {
  /** Inserts passages whose id is new (others are skipped) and the resume point, in one transaction. */
  readonly insert: (
    passages: ReadonlyArray<AnalyzedPassage>,
    progress: typeof ProgressRow.Type | undefined
  ) => Effect.Effect<{ readonly inserted: number }, IndexError>
}

const open = (file: string) => {
  const db = new Database(file, { fileMustExist: true })
  db.pragma("synchronous = NORMAL")
  db.pragma("cache_size = -65536")
  db.pragma("temp_store = MEMORY")
  const insertDocument = db.prepare(
    "INSERT INTO documents (id, title, text, metadata, lang) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING"
  )
  const insertFts = db.prepare("INSERT INTO fts (rowid, title, body, title_cjk, body_cjk) VALUES (?, ?, ?, ?, ?)")
  const bumpCount = db.prepare("UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = ?")
  const dropFingerprint = db.prepare("DELETE FROM meta WHERE key = ?")
  const saveProgress = db.prepare(
    "INSERT OR REPLACE INTO ingest_progress (file, size, mtime_ms, byte_offset, line, done, updated_at) " +
      "VALUES (?, ?, ?, ?, ?, ?, ?)"
  )
  const insert = db.transaction(
    (passages: ReadonlyArray<AnalyzedPassage>, progress: typeof ProgressRow.Type | undefined) => {
      let inserted = 0
      for (const { document: d, fts: f } of passages) {
        const written = insertDocument.run(d.id, d.title, d.text, d.metadata, d.lang)
        if (written.changes === 0) continue
        insertFts.run(written.lastInsertRowid, f.title, f.body, f.title_cjk, f.body_cjk)
        inserted++
      }
      if (inserted !== 0) {
        bumpCount.run(inserted, MetaKey.documentCount)
        dropFingerprint.run(MetaKey.contentFingerprint)
      }
      if (progress !== undefined) {
        const p = progress
        saveProgress.run(p.file, p.size, p.mtime_ms, p.byte_offset, p.line, p.done, p.updated_at)
      }
      return { inserted }
    }
  )
  return { db, insert }
}

/** Opens the fast path on an existing collection file for the life of the scope. */
export const openIngestFastPath = (file: string): Effect.Effect<IngestFastPath, IndexError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.try({ try: () => open(file), catch: indexFailure(file, "opening") }),
    ({ db }) => Effect.sync(() => db.close())
  ).pipe(
    Effect.map(({ insert }) => ({
      insert: (passages, progress) =>
        Effect.try({ try: () => insert(passages, progress), catch: indexFailure(file, "adding passages") })
    }))
  )
