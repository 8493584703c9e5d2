import type { Effect } from "effect"

/** Corpus file formats. `auto` picks one from the file extension and the first record's shape. */
export type CorpusFormat = "documents" | "ircot" | "hotpotqa" | "musique" | "text" | "markdown"
export type CorpusFormatOption = CorpusFormat | "auto" | "2wiki"

/** A record that failed validation and was skipped. */
export interface RecordIssue {
  readonly file: string
  readonly line: number
  readonly field?: string | undefined
  readonly message: string
}

/** Progress of an ingest, reported after every committed batch. */
export interface IngestProgress {
  readonly collection: string
  readonly file: string
  /** 1-based index of the file in the list, and the number of files. */
  readonly fileIndex: number
  readonly files: number
  readonly line: number
  readonly bytesRead: number
  readonly fileBytes: number
  readonly added: number
  readonly skipped: number
  readonly invalid: number
}

export interface FileSummary {
  readonly file: string
  readonly format: CorpusFormat
  /** `unchanged`: already fully indexed (same size and mtime), nothing read. */
  readonly status: "indexed" | "unchanged"
  /** Line the ingest continued after (0 for a fresh start). */
  readonly resumedFromLine: number
  readonly added: number
  readonly skipped: number
  readonly invalid: number
}

/** What an ingest did. */
export interface IngestSummary {
  readonly collection: string
  readonly indexFile: string
  /** Passages inserted. */
  readonly added: number
  /** Passages not inserted because their id was already in the collection. */
  readonly skipped: number
  /** Records that failed validation (all of them; `errors` keeps the first `maxReportedErrors`). */
  readonly invalid: number
  readonly errors: ReadonlyArray<RecordIssue>
  readonly files: ReadonlyArray<FileSummary>
  /** Passages in the collection afterwards. */
  readonly documents: number
  readonly ms: number
}

export interface IndexOptions {
  /** Default `auto`. */
  readonly format?: CorpusFormatOption
  /** Fail the whole ingest at the first invalid record instead of skipping it. Default false. */
  readonly strict?: boolean
  /** Records per transaction. Default 2000. */
  readonly batchSize?: number
  /** Upper bound on passage length when splitting text and markdown files. Default 1500 characters. */
  readonly maxChars?: number
  /** What a passage whose id is already indexed does: `skip` (default) or `replace` the stored one. */
  readonly onDuplicate?: "skip" | "replace"
  /** How many record errors the summary lists. Default 1000. */
  readonly maxReportedErrors?: number
  /**
   * Called after every committed batch (render a progress bar, publish an event). Interrupting here aborts the
   * ingest; committed batches stay and a rerun resumes after them.
   */
  readonly onProgress?: (progress: IngestProgress) => Effect.Effect<void>
  /** Merge the FTS5 segments at the end (smaller file, faster queries; costs time on big builds). Default true. */
  readonly optimize?: boolean
  /** Settings of a new collection (ignored when it exists: its stored settings win). */
  readonly settings?: Partial<CollectionSettings>
}

/** Tokenizer settings fixed when a collection is created. */
export interface CollectionSettings {
  /** Porter stemming of English tokens inside FTS5. */
  readonly stemming: "porter" | "none"
}

export const defaultCollectionSettings: CollectionSettings = { stemming: "porter" }
