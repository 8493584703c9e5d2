import { answerQuestion, RunConfig } from "@deepnote-rag/core"
import { LlmAnswerer, LlmJudge, LlmNoteWriter, LlmQueryPlanner, LlmSettings, httpClientLayer, LlmClient, UsageLedger, LlmCache } from "@deepnote-rag/llm"
import { start } from "@deepnote-rag/llm-sim"
import { Effect, Layer, Schema } from "effect"
import { makeWorkload, retrieverLayer } from "./workload.mjs"
const { questions, passages } = makeWorkload(150)
const config = Schema.decodeUnknownSync(RunConfig)({ topK: 3, recallK: 20 })
const runWith = (conc) => Effect.runPromise(Effect.scoped(Effect.gen(function*() {
  const sim = yield* start({ stepBaseMs: 0.5 })
  const ctx = yield* Layer.build(Layer.mergeAll(LlmNoteWriter.layer, LlmQueryPlanner.layer, LlmJudge.layer, LlmAnswerer.layer).pipe(Layer.provideMerge(LlmClient.layer.pipe(Layer.provideMerge(Layer.mergeAll(UsageLedger.layer, LlmCache.layer({ file: undefined }), httpClientLayer({ connections: 80 }))), Layer.provideMerge(LlmSettings.layer({ endpoints: [{ url: sim.url }] })))), Layer.merge(retrieverLayer(passages))))
  return yield* Effect.forEach(questions, (q) => answerQuestion(q, config).pipe(Effect.provide(ctx)), { concurrency: conc })
})))
const a = await runWith(150), b = await runWith(1)
let diff = 0
a.forEach((r, i) => { if (r.answer.text !== b[i].answer.text) { diff++; if (diff < 4) console.log(JSON.stringify([r.question, r.answer.text, b[i].answer.text, r.counters.llm.total, b[i].counters.llm.total])) } })
console.log("differences", diff)
