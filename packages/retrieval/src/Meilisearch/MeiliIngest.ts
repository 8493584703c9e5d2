import { detectLanguage } from "@deepnote-rag/text"
import { Clock, Effect, Stream } from "effect"
import type { CorpusDocument } from "../Domain/CorpusDocument.js"
import type { CorpusFileNotFound, InvalidCorpusFile, InvalidRecord } from "../Domain/Errors.js"
import type { CorpusFormat, CorpusFormatOption, IngestProgress, RecordIssue } from "../Domain/Ingest.js"
import { checkCorpusInputs } from "../Ingest/CorpusInputs.js"
import { readCorpus } from "../Ingest/CorpusReader.js"
import { batchIssues, batchProgress } from "../Ingest/IngestBatch.js"
import { MeiliClient } from "./MeiliClient.js"
import type { MeiliError } from "./MeiliError.js"

export interface MeiliIndexOptions {
  /** Default `auto`. */
  readonly format?: CorpusFormatOption | undefined
  /** Fail at the first invalid record instead of skipping it. Default false. */
  readonly strict?: boolean | undefined
  /** Passages read per upload (one task each). Default 1000. */
  readonly batchSize?: number | undefined
  /** Upper bound on passage length when splitting text and markdown files. Default 1500 characters. */
  readonly maxChars?: number | undefined
  readonly maxReportedErrors?: number | undefined
  /**
   * The corpus language: `zh` sets `localizedAttributes` cmn on title and text, `en` clears them; `auto` (default)
   * sets them when most passages of the first batch are Chinese and leaves them as they are otherwise.
   */
  readonly language?: "auto" | "en" | "zh" | undefined
  /** Called after every uploaded batch's task succeeded; interrupting aborts (uploaded batches stay). */
  readonly onProgress?: ((progress: IngestProgress) => Effect.Effect<void>) | undefined
}

export interface MeiliFileSummary {
  readonly file: string
  readonly format: CorpusFormat
  /** Passages uploaded (new ones added, ids already in the index replaced). */
  readonly sent: number
  readonly invalid: number
}

/** What `deepnote index --backend meilisearch` did. */
export interface MeiliIngestSummary {
  readonly backend: "meilisearch"
  /** The server, without credentials. */
  readonly host: string
  readonly index: string
  /** The language the index settings were made for (`auto` that found no Chinese: `en`). */
  readonly language: "en" | "zh"
  readonly sent: number
  /** Passages Meilisearch reported indexed (`details.indexedDocuments` of the upload tasks). */
  readonly indexed: number
  readonly invalid: number
  readonly errors: ReadonlyArray<RecordIssue>
  readonly files: ReadonlyArray<MeiliFileSummary>
  /** Documents in the index afterwards. */
  readonly documents: number
  readonly ms: number
}

const mostlyChinese = (documents: ReadonlyArray<CorpusDocument>): boolean =>
  documents.filter((d) => detectLanguage(`${d.title} ${d.text}`) === "zh").length * 2 > documents.length

/**
 * Uploads corpus files into the Meilisearch index of the `MeiliClient` in context with the same readers and record
 * validation as the embedded index. Every file is checked before anything is sent; the server's health is checked
 * before the index settings are made; each batch is one upload task, waited for. Re-running replaces passages with
 * the same id (idempotent); there is no resume point: a rerun sends every file again.
 */
export const indexIntoMeilisearch = (
  files: ReadonlyArray<string>,
  options: MeiliIndexOptions = {}
): Effect.Effect<
  MeiliIngestSummary,
  CorpusFileNotFound | InvalidCorpusFile | InvalidRecord | MeiliError,
  MeiliClient
> =>
  Effect.gen(function*() {
    const meili = yield* MeiliClient
    const started = yield* Clock.currentTimeMillis
    const inputs = yield* checkCorpusInputs(files, options.format)
    yield* meili.health
    const requested = options.language ?? "auto"
    let language: "en" | "zh" | undefined = requested === "auto" ? undefined : requested
    const prepare = (documents: ReadonlyArray<CorpusDocument>) =>
      Effect.suspend(() => {
        if (language !== undefined) return meili.prepare({ chinese: language === "zh" })
        language = mostlyChinese(documents) ? "zh" : "en"
        // auto that finds no Chinese leaves an existing index's localized attributes alone
        return meili.prepare({ chinese: language === "zh" ? true : undefined })
      })
    let prepared = false
    const errors: Array<RecordIssue> = []
    const summaries: Array<MeiliFileSummary> = []
    let indexed = 0
    let invalidTotal = 0

    for (const [i, input] of inputs.entries()) {
      const counts = { sent: 0, invalid: 0 }
      yield* readCorpus(input.absolute, {
        format: input.format,
        from: { offset: 0, line: 0 },
        batchSize: options.batchSize ?? 1000,
        maxChars: options.maxChars ?? 1500
      }).pipe(
        Stream.runForEach((batch) =>
          Effect.gen(function*() {
            const issues = yield* batchIssues(batch, input.file, options.strict ?? false)
            if (!prepared && batch.documents.length > 0) {
              yield* prepare(batch.documents)
              prepared = true
            }
            if (batch.documents.length > 0) indexed += yield* meili.add(batch.documents)
            counts.sent += batch.documents.length
            counts.invalid += issues.length
            invalidTotal += issues.length
            for (const issue of issues) if (errors.length < (options.maxReportedErrors ?? 1000)) errors.push(issue)
            if (options.onProgress !== undefined) {
              yield* options.onProgress(
                batchProgress(meili.target.index, input, i, inputs.length, batch, {
                  added: counts.sent,
                  skipped: 0,
                  invalid: counts.invalid
                })
              )
            }
          })
        )
      )
      summaries.push({ file: input.file, format: input.format, ...counts })
    }
    if (!prepared) yield* prepare([])
    return {
      backend: "meilisearch",
      host: meili.target.host,
      index: meili.target.index,
      language: language ?? "en",
      sent: summaries.reduce((n, s) => n + s.sent, 0),
      indexed,
      invalid: invalidTotal,
      errors,
      files: summaries,
      documents: yield* meili.count,
      ms: (yield* Clock.currentTimeMillis) - started
    }
  })
