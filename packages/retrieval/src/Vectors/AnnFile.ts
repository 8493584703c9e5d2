import { Option, Schema } from "effect"
import * as Fs from "node:fs"
import { Index, MetricKind, ScalarKind } from "usearch"

/**
 * The ANN index of a collection's vectors: usearch HNSW over cosine distance, vectors kept as f16, keys = passage
 * rowids. Chosen on benchmarks/retrieval/ann.json (100k × 384): see results.md, "Dense: the ANN index".
 * Connectivity 16, expansion 128 when adding and 64 when searching, as measured there.
 */
const settings = { metric: MetricKind.Cos, quantization: ScalarKind.F16, connectivity: 16, multi: false } as const
const expansionAdd = 128
const expansionSearch = 64

/** What the ANN file beside the collection was built from, in `<name>.usearch.json`. */
export const AnnFacts = Schema.Struct({
  /** The collection's `vectors_version`: the file holds every vector of that version, and no other. */
  version: Schema.Number,
  model: Schema.String,
  dimensions: Schema.Int,
  count: Schema.Int
})
export type AnnFacts = typeof AnnFacts.Type

const decodeFacts = Schema.decodeUnknownOption(Schema.parseJson(AnnFacts))

export interface AnnIndex {
  readonly dimensions: number
  readonly size: () => number
  readonly add: (rowids: ReadonlyArray<number>, vectors: ReadonlyArray<Float32Array>) => void
  /** The `limit` nearest rowids with their cosine similarity (1 − distance), best first. */
  readonly search: (
    query: Float32Array,
    limit: number
  ) => Array<{ readonly rowid: number; readonly similarity: number }>
  /** Writes the index (to a temporary file renamed over the old one), then its facts. */
  readonly save: (file: string, facts: AnnFacts) => void
}

const wrap = (index: Index, dimensions: number): AnnIndex => ({
  dimensions,
  size: () => index.size(),
  add: (rowids, vectors) => {
    if (rowids.length === 0) return
    const matrix = new Float32Array(rowids.length * dimensions)
    vectors.forEach((v, i) => matrix.set(v, i * dimensions))
    // one thread: a DeepNote process shares its machine (and the measurement was made so)
    index.add(BigUint64Array.from(rowids, BigInt), matrix, 1)
  },
  search: (query, limit) => {
    if (index.size() === 0) return []
    const found = index.search(query, limit, 1)
    return Array.from(found.keys, (key, i) => ({ rowid: Number(key), similarity: 1 - found.distances[i]! }))
  },
  save: (file, facts) => {
    const temporary = `${file}.tmp-${process.pid}`
    index.save(temporary)
    Fs.renameSync(temporary, file)
    Fs.writeFileSync(`${file}.json.tmp-${process.pid}`, JSON.stringify(facts) + "\n")
    Fs.renameSync(`${file}.json.tmp-${process.pid}`, `${file}.json`)
  }
})

const make = (dimensions: number) =>
  new Index({ dimensions, ...settings, expansion_add: expansionAdd, expansion_search: expansionSearch })

/** An empty index for vectors of `dimensions`. */
export const emptyAnn = (dimensions: number): AnnIndex => wrap(make(dimensions), dimensions)

/** The facts of the ANN file, when it and its facts exist and decode. */
export const annFacts = (file: string): AnnFacts | undefined =>
  Fs.existsSync(file) && Fs.existsSync(`${file}.json`)
    ? Option.getOrUndefined(decodeFacts(Fs.readFileSync(`${file}.json`, "utf8")))
    : undefined

/**
 * Opens the ANN file: `view` maps it read-only (opens in milliseconds whatever its size; searches only), `load`
 * reads it into memory (vectors can be added).
 */
export const openAnn = (file: string, dimensions: number, mode: "view" | "load"): AnnIndex => {
  const index = make(dimensions)
  if (mode === "view") index.view(file)
  else index.load(file)
  return wrap(index, dimensions)
}

/** Deletes the ANN file and its facts. */
export const removeAnn = (file: string): void => {
  for (const suffix of ["", ".json"]) Fs.rmSync(file + suffix, { force: true })
}
