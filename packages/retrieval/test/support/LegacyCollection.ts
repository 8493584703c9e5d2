import Database from "better-sqlite3"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { analyzeDocument, type CorpusDocument } from "../../src/index.js"

/**
 * Writes a collection file exactly as builds before migrations did (schema version 1, no migrations table, no
 * application id): the same DDL, meta rows and per-passage inserts, copied from that version.
 */
export const writeLegacyCollection = (file: string, documents: ReadonlyArray<CorpusDocument>): void => {
  Fs.mkdirSync(Path.dirname(file), { recursive: true })
  const db = new Database(file)
  db.pragma("journal_mode = WAL")
  db.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`)
  db.exec(`CREATE TABLE IF NOT EXISTS documents (
     rowid INTEGER PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     title TEXT NOT NULL,
     text TEXT NOT NULL,
     metadata TEXT,
     lang TEXT NOT NULL
   )`)
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
     title, body, title_cjk, body_cjk,
     content='', contentless_delete=1,
     tokenize='unicode61 remove_diacritics 2'
   )`)
  db.exec(`CREATE TABLE IF NOT EXISTS ingest_progress (
     file TEXT PRIMARY KEY,
     size INTEGER NOT NULL,
     mtime_ms INTEGER NOT NULL,
     byte_offset INTEGER NOT NULL,
     line INTEGER NOT NULL,
     done INTEGER NOT NULL,
     updated_at TEXT NOT NULL
   )`)
  const put = db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)")
  put.run("schema_version", "1")
  put.run("stemming", "none")
  put.run("tokenizer", "unicode61 remove_diacritics 2")
  put.run("created_at", "2026-01-02T03:04:05.000Z")
  put.run("document_count", String(documents.length))
  const insertDoc = db.prepare("INSERT INTO documents (id, title, text, metadata, lang) VALUES (?, ?, ?, ?, ?)")
  const insertFts = db.prepare("INSERT INTO fts (rowid, title, body, title_cjk, body_cjk) VALUES (?, ?, ?, ?, ?)")
  db.transaction(() => {
    for (const d of documents) {
      const a = analyzeDocument(d.title, d.text)
      const written = insertDoc.run(d.id, d.title, d.text, null, a.lang)
      insertFts.run(written.lastInsertRowid, a.title, a.body, a.titleCjk, a.bodyCjk)
    }
  })()
  db.prepare(
    "INSERT INTO ingest_progress (file, size, mtime_ms, byte_offset, line, done, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
  ).run("/corpus/old.jsonl", 100, 1, 100, documents.length, 1, "2026-01-02T03:04:05.000Z")
  db.close()
}
