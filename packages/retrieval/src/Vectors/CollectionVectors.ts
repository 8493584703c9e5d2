import type { EmbedderService, EmbeddingError, EmbeddingModel } from "@deepnote-rag/core"
import type { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { EmbedOptions, EmbedSummary, VectorInfo } from "../Domain/Embedding.js"
import { IndexError } from "../Domain/Errors.js"
import { makeFtsQueries, type ScoredDocument } from "../Index/FtsQueries.js"
import { indexFailure } from "../Index/IndexFailure.js"
import { MetaKey } from "../Index/IndexSchema.js"
import { makeVectorQueries } from "../Index/VectorQueries.js"
import { annFacts, type AnnIndex, emptyAnn, openAnn } from "./AnnFile.js"
import { embedPending } from "./EmbedPending.js"
import { fromBytes } from "./VectorBytes.js"

/** The dense side of one open collection: its stored vectors (SQLite) and their ANN file. */
export interface CollectionVectors {
  readonly annFile: string
  readonly info: Effect.Effect<VectorInfo, IndexError>
  /** The model and length of the stored vectors, from `meta` (cheap); undefined when none is stored. */
  readonly model: Effect.Effect<EmbeddingModel | undefined, IndexError>
  /**
   * Embeds the passages without a vector, batch by batch (each batch committed with its vectors as it answers,
   * `options.parallel` requests in flight), then saves the ANN file.
   */
  readonly embed: (
    collection: string,
    embedder: EmbedderService,
    options: EmbedOptions
  ) => Effect.Effect<EmbedSummary, IndexError | EmbeddingError>
  /**
   * The `limit` passages nearest to a query vector of `model`, by cosine similarity (the score); undefined when the
   * collection has no vectors. A vector of another model or length than the collection's is refused.
   */
  readonly nearest: (
    vector: Float32Array,
    model: string,
    limit: number
  ) => Effect.Effect<ReadonlyArray<ScoredDocument> | undefined, IndexError>
}

/** Rows per page when the ANN file is rebuilt from the stored vectors. */
const pageSize = 2000

export const makeCollectionVectors = (sql: SqlClient.SqlClient, file: string, annFile: string): CollectionVectors => {
  const q = makeVectorQueries(sql)
  const fts = makeFtsQueries(sql)
  const fail = (operation: string) => indexFailure(file, operation)
  const metaOf = (key: string) =>
    Effect.map(fts.metaValue(key), Option.match({ onNone: () => undefined, onSome: (r) => r.value }))
  const state = Effect.gen(function*() {
    const model = yield* metaOf(MetaKey.embeddingModel)
    const dimensions = yield* metaOf(MetaKey.embeddingDimensions)
    return {
      model,
      dimensions: dimensions === undefined ? undefined : Number(dimensions),
      version: Number((yield* metaOf(MetaKey.vectorsVersion)) ?? "0")
    }
  })

  /** Every stored vector into a fresh index (no vector is embedded again). */
  const rebuild = (dimensions: number) =>
    Effect.gen(function*() {
      const ann = emptyAnn(dimensions)
      let afterRowid = 0
      while (true) {
        const rows = yield* q.page({ afterRowid, limit: pageSize })
        ann.add(rows.map((r) => r.rowid), rows.map((r) => fromBytes(r.vector)))
        if (rows.length < pageSize) return ann
        afterRowid = rows[rows.length - 1]!.rowid
      }
    })

  /** The ANN index of the current vectors: the file when it was built from them, else rebuilt in memory. */
  const current = (dimensions: number, version: number, mode: "view" | "load") =>
    Effect.gen(function*() {
      const facts = annFacts(annFile)
      if (facts !== undefined && facts.version === version && facts.dimensions === dimensions) {
        return { ann: openAnn(annFile, dimensions, mode), rebuilt: false }
      }
      return { ann: yield* rebuild(dimensions), rebuilt: true }
    })

  // the search side keeps its index while `vectors_version` stays the same (another process may embed meanwhile)
  let searching: { readonly version: number; readonly ann: AnnIndex } | undefined

  const nearest = (vector: Float32Array, model: string, limit: number) =>
    Effect.gen(function*() {
      const s = yield* state
      if (s.dimensions === undefined) return undefined
      if (s.model !== model || s.dimensions !== vector.length) {
        return yield* new IndexError({
          file,
          reason: `its vectors are from ${s.model} (${s.dimensions} dimensions) and the query's from ${model} ` +
            `(${vector.length}): use the embeddings model the collection was embedded with, or embed it again ` +
            "with --reset"
        })
      }
      if (searching === undefined || searching.version !== s.version) {
        searching = { version: s.version, ann: (yield* current(s.dimensions, s.version, "view")).ann }
      }
      const found = searching.ann.search(vector, limit)
      if (found.length === 0) return []
      const rows = yield* q.documentsByRowid(found.map((f) => f.rowid))
      const byRowid = new Map(rows.map((r) => [r.rowid, r]))
      return found.flatMap((f) => {
        const row = byRowid.get(f.rowid)
        return row === undefined ? [] : [{ id: row.id, title: row.title, text: row.text, score: f.similarity }]
      })
    }).pipe(Effect.mapError(fail("searching the vectors")))

  const info = Effect.gen(function*() {
    const s = yield* state
    return {
      model: s.model,
      dimensions: s.dimensions,
      vectors: (yield* q.countVectors(undefined)).n,
      pending: (yield* q.countPending(undefined)).n,
      annFile
    }
  }).pipe(Effect.mapError(fail("reading the vectors")))

  const embed = (collection: string, embedder: EmbedderService, options: EmbedOptions) =>
    embedPending(
      {
        sql,
        file,
        annFile,
        state: state.pipe(Effect.mapError(fail("reading the vectors"))),
        current: (dimensions, version) =>
          current(dimensions, version, "load").pipe(Effect.mapError(fail("opening the ANN file"))),
        info,
        forget: () => {
          searching = undefined
        }
      },
      collection,
      embedder,
      options
    )

  const model = Effect.gen(function*() {
    const s = yield* state
    if (s.model === undefined || s.dimensions === undefined) return undefined
    if ((yield* q.anyVector(undefined)).found === 0) return undefined
    const found: EmbeddingModel = { model: s.model, dimensions: s.dimensions }
    return found
  }).pipe(Effect.mapError(fail("reading the vectors")))

  return { annFile, info, model, embed, nearest }
}
