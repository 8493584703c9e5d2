import { Home } from "@deepnote/core"
import { Context, Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { attempt, ingestFiles } from "./Collections/IngestFiles.js"
import type { CorpusDocument } from "./Domain/CorpusDocument.js"
import { CollectionNotFound, type IndexError, type IngestError, InvalidCollectionName } from "./Domain/Errors.js"
import type { CollectionSettings, IndexOptions, IngestSummary } from "./Domain/Ingest.js"
import { type FileProgress, FtsIndex, type ScoredDocument } from "./Index/FtsIndex.js"
import { buildMatch } from "./Index/MatchQuery.js"

/** What `Collections.info` reports about a collection file. */
export interface CollectionInfo {
  readonly name: string
  readonly file: string
  readonly documents: number
  readonly sizeBytes: number
  readonly settings: CollectionSettings
  /** Everything in the file's `meta` table (schema version, tokenizer, created/built times, …). */
  readonly meta: Readonly<Record<string, string>>
  readonly files: ReadonlyArray<FileProgress>
}

export interface SearchOptions {
  readonly limit: number
  /** BM25 weight of the title columns (default 5, RunConfig.titleWeight). */
  readonly titleWeight?: number
  /** BM25 weight of the text columns (default 1, RunConfig.textWeight). */
  readonly textWeight?: number
  /** Multiplier of the CJK bigram columns relative to the word columns (default 1). */
  readonly cjkWeight?: number
}

type LookupError = InvalidCollectionName | CollectionNotFound | IndexError

const validName = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/u

/** Named BM25 collections under `<home>/collections/<name>.sqlite`: build, update, search, inspect, drop. */
export class Collections extends Context.Tag("@deepnote/retrieval/Collections")<Collections, {
  /** Ingests corpus files (JSONL documents, IRCoT/HotpotQA/MuSiQue/2Wiki QA files, text, markdown); resumable. */
  readonly index: (
    name: string,
    files: ReadonlyArray<string>,
    options?: IndexOptions
  ) => Effect.Effect<IngestSummary, IngestError>
  /** Adds passages in one transaction (creating the collection if needed). */
  readonly add: (
    name: string,
    documents: ReadonlyArray<CorpusDocument>,
    options?: { readonly onDuplicate?: "skip" | "replace"; readonly settings?: Partial<CollectionSettings> }
  ) => Effect.Effect<{ readonly added: number; readonly skipped: number }, InvalidCollectionName | IndexError>
  /** Deletes passages by id; returns how many existed. */
  readonly remove: (name: string, ids: ReadonlyArray<string>) => Effect.Effect<number, LookupError>
  /** One BM25 query (free text, tokenised safely) → the best `limit` passages. */
  readonly search: (
    name: string,
    query: string,
    options: SearchOptions
  ) => Effect.Effect<ReadonlyArray<ScoredDocument>, LookupError>
  readonly get: (
    name: string,
    ids: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<Omit<ScoredDocument, "score">>, LookupError>
  readonly info: (name: string) => Effect.Effect<CollectionInfo, LookupError>
  readonly list: Effect.Effect<ReadonlyArray<string>>
  /** Deletes the collection file; false when there was none. */
  readonly drop: (name: string) => Effect.Effect<boolean, InvalidCollectionName | IndexError>
}>() {
  static readonly layer = Layer.scoped(
    Collections,
    Effect.gen(function*() {
      const home = yield* Home
      const collectionsDir = Path.join(home.root, "collections")
      const open = new Map<string, FtsIndex>()
      const locks = new Map<string, Effect.Semaphore>()
      yield* Effect.addFinalizer(() => Effect.sync(() => open.forEach((index) => index.close())))

      const fileOf = (name: string) =>
        validName.test(name)
          ? Effect.succeed(Path.join(collectionsDir, `${name}.sqlite`))
          : Effect.fail(new InvalidCollectionName({ name }))
      const lock = (name: string) => {
        let semaphore = locks.get(name)
        if (semaphore === undefined) locks.set(name, semaphore = Effect.unsafeMakeSemaphore(1))
        return semaphore.withPermits(1)
      }
      const openIndex = (name: string, file: string, create: boolean, settings?: Partial<CollectionSettings>) =>
        attempt(file, () => {
          const opened = open.get(name) ?? FtsIndex.open(file, { create, ...(settings ? { settings } : {}) })
          open.set(name, opened)
          return opened
        })
      /** The collection's index, created when missing. */
      const writable = (name: string, settings?: Partial<CollectionSettings>) =>
        Effect.flatMap(fileOf(name), (file) => openIndex(name, file, true, settings))
      /** The collection's index, or `CollectionNotFound`. */
      const existing = (name: string) =>
        Effect.flatMap(
          fileOf(name),
          (file): Effect.Effect<FtsIndex, CollectionNotFound | IndexError> =>
            open.has(name) || Fs.existsSync(file)
              ? openIndex(name, file, false)
              : Effect.fail(new CollectionNotFound({ name, file }))
        )

      return Collections.of({
        index: Effect.fn("Collections.index")(function*(name, files, options = {}) {
          yield* Effect.annotateCurrentSpan({ "deepnote.collection": name, "deepnote.files": files.length })
          const index = yield* writable(name, options.settings)
          return yield* lock(name)(ingestFiles(index, name, files, options))
        }),
        add: Effect.fn("Collections.add")(function*(name, documents, options = {}) {
          const index = yield* writable(name, options.settings)
          return yield* lock(name)(attempt(index.file, () => index.addBatch(documents, options.onDuplicate ?? "skip")))
        }),
        remove: Effect.fn("Collections.remove")(function*(name, ids) {
          const index = yield* existing(name)
          return yield* lock(name)(attempt(index.file, () => index.delete(ids)))
        }),
        search: Effect.fn("Collections.search")(function*(name, query, options) {
          const match = buildMatch(query)
          if (match === undefined) return []
          const index = yield* existing(name)
          const weights = {
            title: options.titleWeight ?? 5,
            text: options.textWeight ?? 1,
            cjk: options.cjkWeight ?? 1
          }
          return yield* attempt(index.file, () => index.search(match, options.limit, weights))
        }),
        get: Effect.fn("Collections.get")(function*(name, ids) {
          const index = yield* existing(name)
          return yield* attempt(index.file, () => index.get(ids))
        }),
        info: Effect.fn("Collections.info")(function*(name) {
          const index = yield* existing(name)
          return yield* attempt(index.file, () => ({
            name,
            file: index.file,
            documents: index.count(),
            sizeBytes: ["", "-wal"].reduce(
              (n, suffix) => n + (Fs.statSync(index.file + suffix, { throwIfNoEntry: false })?.size ?? 0),
              0
            ),
            settings: index.settings,
            meta: index.meta(),
            files: index.allProgress()
          }))
        }),
        list: Effect.sync(() =>
          Fs.existsSync(collectionsDir)
            ? Fs.readdirSync(collectionsDir).filter((f) => f.endsWith(".sqlite")).map((f) =>
              f.slice(0, -".sqlite".length)
            ).sort()
            : []
        ),
        drop: Effect.fn("Collections.drop")(function*(name) {
          const file = yield* fileOf(name)
          return yield* lock(name)(Effect.sync(() => {
            open.get(name)?.close()
            open.delete(name)
            const existed = Fs.existsSync(file)
            for (const suffix of ["", "-wal", "-shm"]) Fs.rmSync(file + suffix, { force: true })
            return existed
          }))
        })
      })
    })
  )
}
