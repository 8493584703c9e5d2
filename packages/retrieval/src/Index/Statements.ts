import type Database from "better-sqlite3"

/** The prepared statements of a collection file (prepared once per connection). */
export type StatementName =
  | "insertDoc"
  | "updateDoc"
  | "deleteDoc"
  | "rowidOf"
  | "getDoc"
  | "insertFts"
  | "deleteFts"
  | "putMeta"
  | "bumpCount"
  | "progressOf"
  | "saveProgress"
  | "search"

export type Statements = { readonly [K in StatementName]: Database.Statement }

export const prepareStatements = (db: Database.Database): Statements => ({
  insertDoc: db.prepare(
    "INSERT INTO documents (id, title, text, metadata, lang) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING"
  ),
  updateDoc: db.prepare("UPDATE documents SET title = ?, text = ?, metadata = ?, lang = ? WHERE rowid = ?"),
  deleteDoc: db.prepare("DELETE FROM documents WHERE rowid = ?"),
  rowidOf: db.prepare("SELECT rowid FROM documents WHERE id = ?"),
  getDoc: db.prepare("SELECT id, title, text FROM documents WHERE id = ?"),
  insertFts: db.prepare("INSERT INTO fts (rowid, title, body, title_cjk, body_cjk) VALUES (?, ?, ?, ?, ?)"),
  deleteFts: db.prepare("DELETE FROM fts WHERE rowid = ?"),
  putMeta: db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"),
  bumpCount: db.prepare("UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = ?"),
  progressOf: db.prepare("SELECT * FROM ingest_progress WHERE file = ?"),
  saveProgress: db.prepare(
    "INSERT OR REPLACE INTO ingest_progress (file, size, mtime_ms, byte_offset, line, done, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
  ),
  search: db.prepare(
    `SELECT d.id AS id, d.title AS title, d.text AS text, -r.score AS score
     FROM (SELECT rowid, bm25(fts, ?, ?, ?, ?) AS score FROM fts WHERE fts MATCH ? ORDER BY score LIMIT ?) AS r
     JOIN documents AS d ON d.rowid = r.rowid
     ORDER BY r.score`
  )
})
