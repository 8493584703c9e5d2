import Database from "better-sqlite3"
import * as Fs from "node:fs"
import * as Path from "node:path"
import type { CorpusDocument } from "../Domain/CorpusDocument.js"
import { type CollectionSettings, defaultCollectionSettings } from "../Domain/Ingest.js"
import { analyzeDocument } from "./Analyzer.js"
import { createStatements, MetaKey, schemaVersion, tokenizerFor } from "./IndexSchema.js"
import { prepareStatements, type Statements } from "./Statements.js"

/** A search hit: the stored passage and its BM25 score (higher is better). */
export interface ScoredDocument {
  readonly id: string
  readonly title: string
  readonly text: string
  readonly score: number
}

/** BM25 column weights. Bigram columns use the word-column weight times `cjk`. */
export interface ColumnWeights {
  readonly title: number
  readonly text: number
  readonly cjk: number
}

/** Where ingestion of one file stopped. */
export interface FileProgress {
  readonly file: string
  readonly size: number
  readonly mtimeMs: number
  readonly offset: number
  readonly line: number
  readonly done: boolean
}

/**
 * The embedded BM25 index of one collection: a synchronous wrapper over one better-sqlite3 connection.
 * Methods throw on SQLite errors; the `Collections` service turns them into `IndexError`s.
 */
export class FtsIndex {
  private readonly stmt: Statements

  private constructor(
    readonly file: string,
    private readonly db: Database.Database,
    readonly settings: CollectionSettings
  ) {
    this.stmt = prepareStatements(db)
  }

  /** Opens (and with `create`, creates) a collection file. Stored settings win over the requested ones. */
  static open(
    file: string,
    options: { readonly create: boolean; readonly settings?: Partial<CollectionSettings> }
  ): FtsIndex {
    if (options.create) Fs.mkdirSync(Path.dirname(file), { recursive: true })
    const db = new Database(file, { fileMustExist: !options.create })
    try {
      db.pragma("journal_mode = WAL")
      db.pragma("synchronous = NORMAL")
      db.pragma("cache_size = -65536")
      db.pragma("temp_store = MEMORY")
      const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'meta'").get() !== undefined
      const stored = hasMeta
        ? new Map(
          (db.prepare("SELECT key, value FROM meta").all() as Array<{ key: string; value: string }>).map((
            r
          ) => [r.key, r.value])
        )
        : new Map<string, string>()
      const version = stored.get(MetaKey.schemaVersion)
      if (version !== undefined && Number(version) !== schemaVersion) {
        throw new Error(`schema version ${version}, this build reads version ${schemaVersion}: rebuild the collection`)
      }
      const stemming = stored.get(MetaKey.stemming) ?? options.settings?.stemming ?? defaultCollectionSettings.stemming
      const settings: CollectionSettings = { stemming: stemming === "none" ? "none" : "porter" }
      if (version === undefined) {
        db.transaction(() => {
          for (const sql of createStatements(settings)) db.exec(sql)
          const put = db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)")
          put.run(MetaKey.schemaVersion, String(schemaVersion))
          put.run(MetaKey.stemming, settings.stemming)
          put.run(MetaKey.tokenizer, tokenizerFor(settings))
          put.run(MetaKey.stopWords, "english+chinese (@deepnote/text), removed at index and query time")
          put.run(MetaKey.chinese, "jieba cutForSearch (index) / cut (query) words + CJK character bigrams")
          put.run(MetaKey.createdAt, new Date().toISOString())
          put.run(MetaKey.documentCount, "0")
        })()
      }
      return new FtsIndex(file, db, settings)
    } catch (e) {
      db.close()
      throw e
    }
  }

  /**
   * Inserts passages in one transaction, with the file's resume point when given. Passages whose id exists are
   * skipped or replaced (a replaced passage counts as added). Nothing of the batch is kept if any statement fails.
   */
  addBatch(
    documents: ReadonlyArray<CorpusDocument>,
    onDuplicate: "skip" | "replace",
    progress?: FileProgress
  ): { readonly added: number; readonly skipped: number } {
    return this.db.transaction(() => {
      let inserted = 0
      let replaced = 0
      let skipped = 0
      for (const d of documents) {
        const a = analyzeDocument(d.title, d.text)
        const metadata = d.metadata === undefined ? null : JSON.stringify(d.metadata)
        const result = this.stmt.insertDoc.run(d.id, d.title, d.text, metadata, a.lang)
        let rowid = result.lastInsertRowid
        if (result.changes === 0) {
          if (onDuplicate === "skip") {
            skipped++
            continue
          }
          rowid = (this.stmt.rowidOf.get(d.id) as { rowid: number }).rowid
          this.stmt.deleteFts.run(rowid)
          this.stmt.updateDoc.run(d.title, d.text, metadata, a.lang, rowid)
          replaced++
        } else {
          inserted++
        }
        this.stmt.insertFts.run(rowid, a.title, a.body, a.titleCjk, a.bodyCjk)
      }
      this.bumpCount(inserted)
      if (progress !== undefined) this.saveProgress(progress)
      return { added: inserted + replaced, skipped }
    })()
  }

  /** Deletes passages by id (from the documents and the FTS index); returns how many existed. */
  delete(ids: ReadonlyArray<string>): number {
    return this.db.transaction(() => {
      let deleted = 0
      for (const id of ids) {
        const row = this.stmt.rowidOf.get(id) as { rowid: number } | undefined
        if (row === undefined) continue
        this.stmt.deleteFts.run(row.rowid)
        this.stmt.deleteDoc.run(row.rowid)
        deleted++
      }
      this.bumpCount(-deleted)
      return deleted
    })()
  }

  /** The best `limit` passages for a MATCH expression (see `buildMatch`), by weighted BM25. */
  search(match: string, limit: number, weights: ColumnWeights): Array<ScoredDocument> {
    const w = [weights.title, weights.text, weights.title * weights.cjk, weights.text * weights.cjk]
    return this.stmt.search.all(...w, match, limit) as Array<ScoredDocument>
  }

  /** Stored passages by id, in the order asked (unknown ids are left out). */
  get(ids: ReadonlyArray<string>): Array<Omit<ScoredDocument, "score">> {
    return ids.flatMap((id) => {
      const row = this.stmt.getDoc.get(id) as Omit<ScoredDocument, "score"> | undefined
      return row === undefined ? [] : [row]
    })
  }

  progressOf(file: string): FileProgress | undefined {
    const row = this.stmt.progressOf.get(file) as
      | { file: string; size: number; mtime_ms: number; byte_offset: number; line: number; done: number }
      | undefined
    return row === undefined ? undefined : {
      file: row.file,
      size: row.size,
      mtimeMs: row.mtime_ms,
      offset: row.byte_offset,
      line: row.line,
      done: row.done === 1
    }
  }

  saveProgress(p: FileProgress): void {
    this.stmt.saveProgress.run(p.file, p.size, p.mtimeMs, p.offset, p.line, p.done ? 1 : 0, new Date().toISOString())
  }

  allProgress(): Array<FileProgress> {
    return (this.db.prepare("SELECT file FROM ingest_progress ORDER BY file").all() as Array<{ file: string }>)
      .flatMap((r) => this.progressOf(r.file) ?? [])
  }

  count(): number {
    return Number(this.meta()[MetaKey.documentCount] ?? 0)
  }

  meta(): Record<string, string> {
    const rows = this.db.prepare("SELECT key, value FROM meta").all() as Array<{ key: string; value: string }>
    return Object.fromEntries(rows.map((r) => [r.key, r.value]))
  }

  /** Records the build time; with `optimize`, merges the FTS5 segments into one (faster queries, slower build). */
  finish(optimize: boolean): void {
    if (optimize) this.db.exec("INSERT INTO fts(fts) VALUES ('optimize')")
    this.stmt.putMeta.run(MetaKey.builtAt, new Date().toISOString())
  }

  close(): void {
    if (this.db.open) this.db.close()
  }

  private bumpCount(delta: number): void {
    if (delta !== 0) this.stmt.bumpCount.run(delta, MetaKey.documentCount)
  }
}
