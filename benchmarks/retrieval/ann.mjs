// The ANN index of dense retrieval, measured: usearch, hnswlib-node and sqlite-vec against exact brute force, on the
// same deterministic synthetic vectors in one run (build time, query latency median and spread, recall@10 against
// the brute-force top 10, file size, reopen time). Results → ann.json; discussion in results.md ("Dense: the ANN index").
//
// Run from the repo root: node benchmarks/retrieval/ann.mjs [--n 100000] [--dim 384] [--queries 200]
// usearch is a dependency of @deepnote-rag/retrieval. The two others are not (the comparison is why): install them
// anywhere and pass their node_modules, e.g.
//   npm install --prefix /tmp/ann --save-exact hnswlib-node@3.0.0 sqlite-vec@0.1.9
//   (cd /tmp/ann/node_modules/hnswlib-node && npx node-gyp rebuild)     # npm 11 does not run its build script
//   node benchmarks/retrieval/ann.mjs --modules /tmp/ann/node_modules
// A library that cannot be loaded is reported as missing and left out.
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { performance } from "node:perf_hooks"

const here = Path.dirname(new URL(import.meta.url).pathname)
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] : fallback
}
const n = Number(arg("n", "100000"))
const dim = Number(arg("dim", "384"))
const queryCount = Number(arg("queries", "200"))
const k = 10
const modules = arg("modules", undefined)
// HNSW parameters shared by both graph libraries: M (connectivity) 16, ef_construction 128, ef_search 64
const M = 16
const efConstruction = 128
const efSearch = 64

const projectRequire = createRequire(Path.join(here, "../../packages/retrieval/package.json"))
const load = (name) => {
  for (const req of [projectRequire, ...(modules ? [createRequire(Path.join(modules, "noop.js"))] : [])]) {
    try {
      const mod = req(name)
      // the package's own package.json (not every package exports it)
      let dir = Path.dirname(req.resolve(name))
      while (!Fs.existsSync(Path.join(dir, "package.json")) || JSON.parse(Fs.readFileSync(Path.join(dir, "package.json"), "utf8")).name !== name) dir = Path.dirname(dir)
      return { mod, version: JSON.parse(Fs.readFileSync(Path.join(dir, "package.json"), "utf8")).version }
    } catch {
      // next place
    }
  }
  return undefined
}

// --- deterministic data: unit vectors of intrinsic dimension 32 (a fixed random projection of a Gaussian mixture of
// 256 clusters) plus faint full-dimensional noise, as sentence embeddings are: far from uniform on the sphere
const mulberry32 = (seed) => () => {
  seed |= 0
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const random = mulberry32(20241011)
const gaussian = () => {
  const u = Math.max(random(), 1e-12)
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random())
}
const latent = 32
const projection = Float32Array.from({ length: dim * latent }, gaussian)
const centers = Array.from({ length: 256 }, () => Float32Array.from({ length: latent }, gaussian))
const sample = (out, offset) => {
  const c = centers[Math.floor(random() * centers.length)]
  const z = Float32Array.from({ length: latent }, (_, j) => c[j] + 0.5 * gaussian())
  let norm = 0
  for (let d = 0; d < dim; d++) {
    let x = 0.05 * gaussian()
    for (let j = 0; j < latent; j++) x += projection[d * latent + j] * z[j] / Math.sqrt(latent)
    out[offset + d] = x
    norm += x * x
  }
  const inv = 1 / Math.sqrt(norm)
  for (let d = 0; d < dim; d++) out[offset + d] *= inv
}
const started = performance.now()
const data = new Float32Array(n * dim)
for (let i = 0; i < n; i++) sample(data, i * dim)
const queries = new Float32Array(queryCount * dim)
for (let q = 0; q < queryCount; q++) sample(queries, q * dim)
console.error(`data: ${n} × ${dim} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
const queryAt = (q) => queries.subarray(q * dim, (q + 1) * dim)

// --- exact brute force: the truth, and the baseline every ratio is against
const bruteTopK = (vectors, count, query) => {
  const best = new Float64Array(k).fill(-Infinity)
  const ids = new Int32Array(k).fill(-1)
  for (let i = 0; i < count; i++) {
    let dot = 0
    const o = i * dim
    for (let d = 0; d < dim; d++) dot += vectors[o + d] * query[d]
    if (dot <= best[k - 1]) continue
    let j = k - 1
    while (j > 0 && best[j - 1] < dot) {
      best[j] = best[j - 1]
      ids[j] = ids[j - 1]
      j--
    }
    best[j] = dot
    ids[j] = i
  }
  return Array.from(ids)
}

const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "deepnote-ann-"))
const stats = (ms) => {
  const sorted = [...ms].sort((a, b) => a - b)
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]
  return { medianMs: +at(0.5).toFixed(3), p10Ms: +at(0.1).toFixed(3), p90Ms: +at(0.9).toFixed(3), p99Ms: +at(0.99).toFixed(3) }
}
const time = (f) => {
  const t = performance.now()
  const value = f()
  return { ms: performance.now() - t, value }
}
const cpuTime = (f) => {
  const before = process.cpuUsage()
  const t = performance.now()
  const value = f()
  const cpu = process.cpuUsage(before)
  return { ms: performance.now() - t, cpuMs: (cpu.user + cpu.system) / 1000, value }
}

const results = []
/** Records a backend's row (build time and CPU, file size, reopen time, then `more`) and prints it as it comes. */
const recordRow = ({ backend, version, built, file, reopened }, more) => {
  results.push({
    backend,
    version,
    buildMs: Math.round(built.ms),
    buildCpuMs: Math.round(built.cpuMs),
    fileBytes: Fs.statSync(file).size,
    reopenMs: +reopened.ms.toFixed(1),
    ...more
  })
  console.error(JSON.stringify(results.at(-1)))
}
let truth
{
  const file = Path.join(work, "brute.f32")
  const built = cpuTime(() => Fs.writeFileSync(file, Buffer.from(data.buffer, data.byteOffset, data.byteLength)))
  const reopened = time(() => {
    const bytes = Fs.readFileSync(file)
    return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)
  })
  const latencies = []
  truth = []
  for (let q = 0; q < queryCount; q++) {
    const { ms, value } = time(() => bruteTopK(reopened.value, n, queryAt(q)))
    latencies.push(ms)
    truth.push(value)
  }
  recordRow(
    { backend: "brute force (Float32Array scan, JS)", version: process.version, built, file, reopened },
    { ...stats(latencies), recallAt10: 1 }
  )
  Fs.rmSync(file)
}
const recall = (found) => {
  let hits = 0
  found.forEach((ids, q) => {
    const want = new Set(truth[q])
    for (const id of ids) if (want.has(id)) hits++
  })
  return +(hits / (queryCount * k)).toFixed(4)
}
const measureQueries = (search) => {
  const latencies = []
  const found = []
  for (let q = 0; q < queryCount; q++) {
    const { ms, value } = time(() => search(queryAt(q)))
    latencies.push(ms)
    found.push(value)
  }
  return { ...stats(latencies), recallAt10: recall(found) }
}

const usearch = load("usearch")
if (usearch === undefined) results.push({ backend: "usearch", missing: true })
else {
  for (const quantization of ["f32", "f16", "i8"]) {
    const { Index } = usearch.mod
    const options = { dimensions: dim, metric: "cos", quantization, connectivity: M, expansion_add: efConstruction, expansion_search: efSearch }
    const file = Path.join(work, `usearch-${quantization}.usearch`)
    const keys = BigUint64Array.from({ length: n }, (_, i) => BigInt(i))
    // threads 1: what a DeepNote process gets on a shared 2-core machine, and comparable with hnswlib-node's addPoint
    const built = cpuTime(() => {
      const index = new Index(options)
      index.add(keys, data, 1)
      index.save(file)
      return index
    })
    const search = (index) => (query) => Array.from(index.search(query, k, 1).keys, Number)
    const inMemory = measureQueries(search(built.value))
    const opened = time(() => {
      const index = new Index(options)
      index.load(file)
      return index
    })
    const viewed = time(() => {
      const index = new Index(options)
      index.view(file)
      return index
    })
    const afterView = measureQueries(search(viewed.value))
    recordRow(
      {
        backend: `usearch HNSW ${quantization} (save/load; view = mmap)`,
        version: usearch.version,
        built,
        file,
        reopened: opened
      },
      {
        viewMs: +viewed.ms.toFixed(1),
        ...inMemory,
        viewedMedianMs: afterView.medianMs,
        viewedRecallAt10: afterView.recallAt10
      }
    )
    Fs.rmSync(file)
  }
}

const hnswlib = load("hnswlib-node")
if (hnswlib === undefined) results.push({ backend: "hnswlib-node", missing: true })
else {
  const { HierarchicalNSW } = hnswlib.mod
  const file = Path.join(work, "hnswlib.bin")
  const built = cpuTime(() => {
    const index = new HierarchicalNSW("cosine", dim)
    index.initIndex({ maxElements: n, m: M, efConstruction, randomSeed: 100 })
    for (let i = 0; i < n; i++) index.addPoint(Array.from(data.subarray(i * dim, (i + 1) * dim)), i)
    index.writeIndexSync(file)
    return index
  })
  built.value.setEf(efSearch)
  const search = (index) => (query) => index.searchKnn(Array.from(query), k).neighbors
  const inMemory = measureQueries(search(built.value))
  const opened = time(() => {
    const index = new HierarchicalNSW("cosine", dim)
    index.readIndexSync(file)
    index.setEf(efSearch)
    return index
  })
  recordRow(
    { backend: "hnswlib-node HNSW f32 (writeIndex/readIndex)", version: hnswlib.version, built, file, reopened: opened },
    { ...inMemory, reopenedRecallAt10: measureQueries(search(opened.value)).recallAt10 }
  )
  Fs.rmSync(file)
}

const sqliteVec = load("sqlite-vec")
const Database = load("better-sqlite3")
if (sqliteVec === undefined || Database === undefined) results.push({ backend: "sqlite-vec", missing: true })
else {
  const file = Path.join(work, "vec.sqlite")
  const open = () => {
    const db = new Database.mod(file)
    sqliteVec.mod.load(db)
    return db
  }
  const built = cpuTime(() => {
    const db = open()
    db.pragma("journal_mode = WAL")
    db.exec(`CREATE VIRTUAL TABLE vectors USING vec0(embedding float[${dim}] distance_metric=cosine)`)
    const insert = db.prepare("INSERT INTO vectors (rowid, embedding) VALUES (?, ?)")
    db.transaction(() => {
      for (let i = 0; i < n; i++) insert.run(BigInt(i), Buffer.from(data.buffer, i * dim * 4, dim * 4))
    })()
    db.pragma("wal_checkpoint(TRUNCATE)")
    return db
  })
  built.value.close()
  const opened = time(() => {
    const db = open()
    const statement = db.prepare(`SELECT rowid FROM vectors WHERE embedding MATCH ? AND k = ${k} ORDER BY distance`)
    return { db, statement }
  })
  const first = time(() => opened.value.statement.all(Buffer.from(queries.buffer, 0, dim * 4)))
  const measured = measureQueries((query) =>
    opened.value.statement.all(Buffer.from(query.buffer, query.byteOffset, dim * 4)).map((r) => Number(r.rowid))
  )
  opened.value.db.close()
  recordRow(
    { backend: "sqlite-vec vec0 (exact scan in SQLite)", version: sqliteVec.version, built, file, reopened: opened },
    { firstQueryMs: +first.ms.toFixed(1), ...measured }
  )
}
Fs.rmSync(work, { recursive: true, force: true })

const brute = results[0]
for (const r of results.slice(1)) {
  if (r.missing) continue
  r.vsBruteForce = {
    queryLatency: +(r.medianMs / brute.medianMs).toFixed(4),
    querySpeedup: +(brute.medianMs / r.medianMs).toFixed(1),
    fileSize: +(r.fileBytes / brute.fileBytes).toFixed(2),
    reopen: +(r.reopenMs / Math.max(brute.reopenMs, 0.1)).toFixed(2),
    buildCpu: +(r.buildCpuMs / Math.max(brute.buildCpuMs, 1)).toFixed(0)
  }
}
const record = {
  parameters: { vectors: n, dimensions: dim, queries: queryCount, k, M, efConstruction, efSearch, threads: 1, data: "unit vectors: random projection of a 256-cluster Gaussian mixture in 32 dimensions + 0.05 noise, seed 20241011" },
  results,
  machine: { node: process.version, cpus: Os.cpus().length, cpu: Os.cpus()[0]?.model, loadavg: Os.loadavg().map((x) => +x.toFixed(2)), date: new Date().toISOString() }
}
const out = arg("out", Path.join(here, "ann.json"))
Fs.writeFileSync(out, JSON.stringify(record, null, 2) + "\n")
console.log(JSON.stringify(record, null, 2))
