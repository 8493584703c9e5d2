import type { CollectionSettings } from "../Domain/Ingest.js"

/** The FTS5 tokenizer for pre-tokenised text: `unicode61` (diacritics folded), optionally behind `porter`. */
export const tokenizerFor = (settings: CollectionSettings): string =>
  settings.stemming === "porter" ? "porter unicode61 remove_diacritics 2" : "unicode61 remove_diacritics 2"

/**
 * The tables of migration 1 (the layout of every collection file before migrations existed). One file per collection:
 * - `documents`: the original passages (returned by search), unique by `id`;
 * - `fts`: a contentless FTS5 table (with delete support) over the tokenised columns, rowid = documents.rowid;
 * - `meta`: key/value settings and statistics; `ingest_progress`: per-file resume points.
 */
export const createStatements = (settings: CollectionSettings): ReadonlyArray<string> => [
  `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS documents (
     rowid INTEGER PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     title TEXT NOT NULL,
     text TEXT NOT NULL,
     metadata TEXT,
     lang TEXT NOT NULL
   )`,
  `CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
     title, body, title_cjk, body_cjk,
     content='', contentless_delete=1,
     tokenize='${tokenizerFor(settings)}'
   )`,
  `CREATE TABLE IF NOT EXISTS ingest_progress (
     file TEXT PRIMARY KEY,
     size INTEGER NOT NULL,
     mtime_ms INTEGER NOT NULL,
     byte_offset INTEGER NOT NULL,
     line INTEGER NOT NULL,
     done INTEGER NOT NULL,
     updated_at TEXT NOT NULL
   )`
]

/** Keys of the `meta` table. */
export const MetaKey = {
  schemaVersion: "schema_version",
  stemming: "stemming",
  tokenizer: "tokenizer",
  stopWords: "stop_words",
  chinese: "chinese",
  createdAt: "created_at",
  builtAt: "built_at",
  documentCount: "document_count",
  /** The embeddings model of the collection's vectors, and their length (set by the first embedded batch). */
  embeddingModel: "embedding_model",
  embeddingDimensions: "embedding_dimensions",
  /** Bumped by every change to `vectors` (migration 3): the ANN file records the version it was built from. */
  vectorsVersion: "vectors_version",
  /**
   * The content fingerprint (`FtsIndex.fingerprint`) once computed, kept for the next run; every write that adds,
   * replaces or deletes passages deletes it in its own transaction, so a stored one is always the current content's.
   */
  contentFingerprint: "content_fingerprint",
  /**
   * The lowest collection schema a build must know to read and write the file (migration 5): a build opens a file
   * with migrations it does not know when its own schema is at least this.
   */
  oldestSchema: "oldest_schema"
} as const
