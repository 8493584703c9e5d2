import type { EmbedderService, EmbeddingError } from "@deepnote-rag/core"
import type { SqlClient } from "@effect/sql"
import { Chunk, Clock, Effect } from "effect"
import type { EmbedOptions, EmbedSummary, VectorInfo } from "../Domain/Embedding.js"
import { IndexError } from "../Domain/Errors.js"
import { makeFtsQueries } from "../Index/FtsQueries.js"
import { indexFailure } from "../Index/IndexFailure.js"
import { MetaKey } from "../Index/IndexSchema.js"
import { makeVectorQueries, type PendingRow } from "../Index/VectorQueries.js"
import { type AnnIndex, removeAnn } from "./AnnFile.js"
import { toBytes } from "./VectorBytes.js"

/** What embedding needs of the open collection (`CollectionVectors`). */
export interface EmbedDeps {
  readonly sql: SqlClient.SqlClient
  readonly file: string
  readonly annFile: string
  /** The embeddings model, vector length and `vectors_version` in `meta`. */
  readonly state: Effect.Effect<
    { readonly model: string | undefined; readonly dimensions: number | undefined; readonly version: number },
    IndexError
  >
  /** The ANN index of the current vectors, loaded to add to (rebuilt from the table when the file is stale). */
  readonly current: (
    dimensions: number,
    version: number
  ) => Effect.Effect<{ readonly ann: AnnIndex; readonly rebuilt: boolean }, IndexError>
  readonly info: Effect.Effect<VectorInfo, IndexError>
  /** Drops the search side's open index (after a reset). */
  readonly forget: () => void
}

/**
 * Embeds the passages without a vector (`Collections.embed`): `embedder.batchSize` per request, `options.parallel`
 * requests in flight, each batch's vectors committed in one transaction as its reply arrives (the `vectors` table is
 * the progress), added to the ANN index, which is saved at the end with the `vectors_version` it holds.
 */
export const embedPending = (
  deps: EmbedDeps,
  collection: string,
  embedder: EmbedderService,
  options: EmbedOptions
): Effect.Effect<EmbedSummary, IndexError | EmbeddingError> =>
  Effect.gen(function*() {
    const { annFile, file, info, sql } = deps
    const q = makeVectorQueries(sql)
    const fts = makeFtsQueries(sql)
    const fail = (operation: string) => indexFailure(file, operation)
    const started = yield* Clock.currentTimeMillis
    const model = yield* embedder.model
    if (options.reset === true) {
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`DELETE FROM vectors`
        yield* sql`DELETE FROM meta WHERE key IN (${MetaKey.embeddingModel}, ${MetaKey.embeddingDimensions})`
        yield* sql`UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = ${MetaKey.vectorsVersion}`
      })).pipe(Effect.mapError(fail("dropping the vectors")))
      removeAnn(annFile)
      deps.forget()
    }
    const before = yield* deps.state
    if (before.model !== undefined && (before.model !== model.model || before.dimensions !== model.dimensions)) {
      return yield* new IndexError({
        file,
        reason: `its vectors are from ${before.model} (${before.dimensions} dimensions) and the embeddings ` +
          `server has ${model.model} (${model.dimensions}): embed the collection again with --reset`
      })
    }
    if (before.model === undefined) {
      yield* Effect.forEach(
        [[MetaKey.embeddingModel, model.model], [MetaKey.embeddingDimensions, String(model.dimensions)]] as const,
        ([key, value]) => fts.putMeta({ key, value })
      ).pipe(Effect.mapError(fail("recording the embeddings model")))
    }
    const pending = (yield* q.countPending(undefined).pipe(Effect.mapError(fail("reading the vectors")))).n
    const { ann, rebuilt } = yield* deps.current(model.dimensions, before.version)
    const parallel = Math.max(1, options.parallel ?? 1)
    let afterRowid = 0
    let embedded = 0
    let batches = 0
    /** One request, and its vectors committed in one transaction as soon as it answers. */
    const embedBatch = (rows: ReadonlyArray<typeof PendingRow.Type>) =>
      Effect.gen(function*() {
        const vectors = yield* embedder.embed(
          rows.map((r) => (r.title ? `${r.title}: ${r.text}` : r.text)),
          "passage"
        )
        batches++
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* q.insert(rows.map((r, i) => ({ rowid: r.rowid, vector: toBytes(vectors[i]!) })))
          yield* sql`UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = ${MetaKey.vectorsVersion}`
        })).pipe(Effect.mapError(fail("storing vectors")))
        ann.add(rows.map((r) => r.rowid), vectors)
        embedded += rows.length
        if (options.onProgress !== undefined) yield* options.onProgress({ collection, embedded, pending })
      })
    while (true) {
      const rows = yield* q.pending({ afterRowid, limit: embedder.batchSize * parallel }).pipe(
        Effect.mapError(fail("reading passages to embed"))
      )
      if (rows.length === 0) break
      const chunks = Chunk.toArray(Chunk.chunksOf(Chunk.unsafeFromArray(rows), embedder.batchSize))
      yield* Effect.forEach(chunks, (chunk) => embedBatch(Chunk.toReadonlyArray(chunk)), {
        concurrency: parallel,
        discard: true
      })
      afterRowid = rows[rows.length - 1]!.rowid
    }
    const after = yield* deps.state
    if (embedded > 0 || rebuilt) {
      yield* Effect.try({
        try: () =>
          ann.save(annFile, {
            version: after.version,
            model: model.model,
            dimensions: model.dimensions,
            count: ann.size()
          }),
        catch: fail("writing the ANN file")
      })
    }
    const final = yield* info
    return {
      collection,
      model: model.model,
      dimensions: model.dimensions,
      embedded,
      vectors: final.vectors,
      documents: final.vectors + final.pending,
      batches,
      rebuilt,
      annFile,
      ms: (yield* Clock.currentTimeMillis) - started
    }
  })
