import { annotateHotSpan, Home, withHotSpan } from "@deepnote-rag/core"
import { Context, Effect, ExecutionStrategy, Exit, Layer, Scope } from "effect"
import * as Fs from "node:fs"
import { collectionFile, collectionSize, listCollections, removeCollectionFile } from "./Collections/CollectionFiles.js"
import type { CollectionsService } from "./Collections/CollectionsService.js"
import { ingestFiles } from "./Collections/IngestFiles.js"
import { CollectionNotFound, type IndexError, InvalidCollectionName, NoVectors } from "./Domain/Errors.js"
import type { CollectionSettings } from "./Domain/Ingest.js"
import { openCollection } from "./Index/CollectionDatabase.js"
import type { FtsIndex } from "./Index/FtsIndex.js"
import { indexFailure } from "./Index/IndexFailure.js"
import { matchQuery } from "./Index/MatchQuery.js"
import { SearchCacheLimits } from "./Index/SearchCache.js"
import { makeTermScoresMemory } from "./Index/TermScoresMemory.js"

export type { CollectionInfo, CollectionsService, SearchOptions } from "./Collections/CollectionsService.js"

const validName = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/u

export class Collections extends Context.Tag("@deepnote-rag/retrieval/Collections")<Collections, CollectionsService>() {
  /**
   * The collections of `Home`: each file is opened once (one SQLite client, kept until `drop` or the end of the
   * scope) and written by one fiber at a time (a lock per collection; searches do not wait for it).
   */
  static readonly make: Effect.Effect<CollectionsService, never, Home | Scope.Scope> = Effect.gen(function*() {
    const home = yield* Home
    const scope = yield* Effect.scope
    const open = new Map<string, { readonly index: FtsIndex; readonly scope: Scope.CloseableScope }>()
    const writeLocks = new Map<string, Effect.Semaphore>()
    const openLocks = new Map<string, Effect.Semaphore>()
    // the phrase scores every open collection keeps between searches, held to one budget for the process
    const termScores = makeTermScoresMemory(yield* SearchCacheLimits)
    const lockOf = (locks: Map<string, Effect.Semaphore>, name: string) => {
      let semaphore = locks.get(name)
      if (semaphore === undefined) locks.set(name, semaphore = Effect.unsafeMakeSemaphore(1))
      return semaphore.withPermits(1)
    }
    const lock = (name: string) => lockOf(writeLocks, name)

    const fileOf = (name: string) =>
      validName.test(name)
        ? Effect.succeed(collectionFile(home.root, name))
        : Effect.fail(new InvalidCollectionName({ name }))
    /** The open index of a collection, opening it (in a scope of its own) the first time. */
    const openIndex = (name: string, file: string, create: boolean, settings?: Partial<CollectionSettings>) =>
      Effect.suspend(() => {
        const cached = open.get(name)
        if (cached !== undefined) return Effect.succeed(cached.index)
        return lockOf(openLocks, name)(Effect.gen(function*() {
          const again = open.get(name)
          if (again !== undefined) return again.index
          const own = yield* Scope.fork(scope, ExecutionStrategy.sequential)
          const index = yield* Scope.extend(openCollection(file, { create, settings, termScores }), own).pipe(
            Effect.onError(() => Scope.close(own, Exit.void))
          )
          open.set(name, { index, scope: own })
          return index
        }))
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
    const annotate = (name: string) => Effect.annotateCurrentSpan({ "deepnote.collection": name })

    return Collections.of({
      index: Effect.fn("Collections.index")(function*(name, files, options = {}) {
        yield* Effect.annotateCurrentSpan({ "deepnote.collection": name, "deepnote.files": files.length })
        const index = yield* writable(name, options.settings)
        return yield* lock(name)(ingestFiles(index, name, files, options))
      }),
      add: Effect.fn("Collections.add")(function*(name, documents, options = {}) {
        yield* annotate(name)
        const index = yield* writable(name, options.settings)
        return yield* lock(name)(index.addBatch(documents, options.onDuplicate ?? "skip"))
      }),
      remove: Effect.fn("Collections.remove")(function*(name, ids) {
        yield* annotate(name)
        const index = yield* existing(name)
        return yield* lock(name)(index.delete(ids))
      }),
      search: Effect.fnUntraced(function*(name, query, options) {
        yield* annotateHotSpan({ "deepnote.collection": name })
        const match = matchQuery(query)
        if (match === undefined) return []
        const index = yield* existing(name)
        const weights = { title: options.titleWeight ?? 5, text: options.textWeight ?? 1, cjk: options.cjkWeight ?? 1 }
        return yield* index.search(match, options.limit, weights)
      }, withHotSpan("Collections.search")),
      get: Effect.fn("Collections.get")(function*(name, ids) {
        yield* annotate(name)
        return yield* (yield* existing(name)).get(ids)
      }),
      info: Effect.fn("Collections.info")(function*(name) {
        yield* annotate(name)
        const index = yield* existing(name)
        return {
          name,
          file: index.file,
          documents: yield* index.count,
          sizeBytes: collectionSize(index.file),
          settings: index.settings,
          meta: yield* index.meta,
          files: yield* index.allProgress
        }
      }),
      fingerprint: Effect.fn("Collections.fingerprint")(function*(name) {
        yield* annotate(name)
        // kept in the collection itself until its passages change (`FtsIndex.fingerprint`)
        return yield* (yield* existing(name)).fingerprint
      }),
      embed: Effect.fn("Collections.embed")(function*(name, embedder, options = {}) {
        yield* annotate(name)
        const index = yield* existing(name)
        return yield* lock(name)(index.vectors.embed(name, embedder, options))
      }),
      nearest: Effect.fn("Collections.nearest")(function*(name, vector, model, limit) {
        yield* annotate(name)
        const found = yield* (yield* existing(name)).vectors.nearest(vector, model, limit)
        return found ?? (yield* new NoVectors({ name }))
      }),
      vectorInfo: Effect.fn("Collections.vectorInfo")(function*(name) {
        yield* annotate(name)
        return yield* (yield* existing(name)).vectors.info
      }),
      embeddingModel: Effect.fn("Collections.embeddingModel")(function*(name) {
        yield* annotate(name)
        const found = yield* (yield* existing(name)).vectors.model
        return found ?? (yield* new NoVectors({ name }))
      }),
      list: Effect.sync(() => listCollections(home.root)).pipe(Effect.withSpan("Collections.list")),
      drop: Effect.fn("Collections.drop")(function*(name) {
        yield* annotate(name)
        const file = yield* fileOf(name)
        return yield* lock(name)(Effect.gen(function*() {
          const opened = open.get(name)
          open.delete(name)
          if (opened !== undefined) yield* Scope.close(opened.scope, Exit.void)
          return yield* Effect.try({ try: () => removeCollectionFile(file), catch: indexFailure(file, "deleting") })
        }))
      })
    })
  })

  /** The live service over `Home` (its collections directory). */
  static readonly layer = Layer.scoped(Collections, Collections.make)
}
