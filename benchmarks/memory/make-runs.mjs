// Synthetic runs of realistic size for the memory benchmark: the done items of a real seed run (the extractive engine
// over HotpotQA dev questions, full results with their traces) copied round-robin into new runs of N questions, written
// through the store's public API (`RunStore.createRun`, `completeItem`, `failItem`), so the rows are whatever the
// store's current layout makes of them. One question in 100 is stored as failed; each done question gets one journal
// entry with token usage, so `eval` reads per-question usage as it does for an LLM run.
//   node benchmarks/memory/make-runs.mjs --store sqlite:/tmp/h/deepnote.sqlite --seed RUN_ID --sizes 500,5000,20000
// Prints one JSON line per run: { size, runId, ms }.
import { RunStore, Store } from "@deepnote-rag/store"
import { Chunk, Effect, Layer, ManagedRuntime, Stream } from "effect"
import { parseArgs } from "node:util"

const { values: args } = parseArgs({
  options: { store: { type: "string" }, seed: { type: "string" }, sizes: { type: "string", default: "500" } }
})
const runtime = ManagedRuntime.make(Store.layer({ url: args.store }).pipe(Layer.orDie))

const makeRun = (seed, records, size) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const copies = Array.from({ length: size }, (_, i) => {
      const record = records[i % records.length]
      return { record, question: { ...record.question, id: `${record.question.id}~${i}` } }
    })
    const run = yield* store.createRun({
      manifest: { ...seed.manifest, label: `memory-bench ${size}` },
      questions: copies.map((c) => c.question)
    })
    yield* Effect.forEach(copies, ({ question, record }, i) =>
      i % 100 === 99
        ? store.failItem({
          runId: run.id,
          itemId: question.id,
          error: { tag: "LlmTimeout", message: `no reply from http://127.0.0.1:8000/v1 within 120 s (item ${i})` }
        })
        : store.completeItem({
          runId: run.id,
          itemId: question.id,
          result: record.result,
          journal: [{
            runId: run.id,
            itemId: question.id,
            seq: 0,
            kind: "llm",
            requestHash: `bench-${i}`,
            response: { text: record.result.answer.text },
            usage: { promptTokens: 1500 + (i % 700), completionTokens: 40 + (i % 90) },
            latencyMs: 100 + (i % 50)
          }]
        }), { discard: true })
    yield* store.setRunStatus(run.id, "completed")
    return run.id
  })

const program = Effect.gen(function*() {
  const store = yield* RunStore
  const seed = yield* store.getRun(args.seed)
  const records = Chunk.toReadonlyArray(yield* Stream.runCollect(store.results(args.seed, { statuses: ["done"] })))
  for (const size of args.sizes.split(",").map(Number)) {
    const t0 = performance.now()
    const runId = yield* makeRun(seed, records, size)
    console.log(JSON.stringify({ size, runId, ms: Math.round(performance.now() - t0) }))
  }
})

await runtime.runPromise(program)
await runtime.dispose()
