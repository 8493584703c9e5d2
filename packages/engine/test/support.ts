import { Home, Question, Retriever, RunConfig, structuredFormats } from "@deepnote-rag/core"
import { LlmSettings } from "@deepnote-rag/llm"
import { Collections } from "@deepnote-rag/retrieval"
import { localServer } from "@deepnote-rag/retrieval/testing"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Data, Effect, Layer, Schema } from "effect"

/** Four passages about mines; "gold" is only in mine B, which the reranker of the tests prefers. */
export const mines = [
  { id: "a", title: "Mine A", text: "Mine A is a copper mine in Chile, opened in 1910." },
  { id: "b", title: "Mine B", text: "Mine B is a gold mine in Ghana, opened in 1897." },
  { id: "c", title: "Mine C", text: "Mine C is an iron mine in Sweden, opened in 1890." },
  { id: "d", title: "Mine D", text: "Mine D is a coal mine in Wales, opened in 1850." }
]

/** `Collections` over a temporary home holding the `mines` collection (real SQLite FTS5). */
export const MinesCollection = Layer.effectDiscard(
  Effect.flatMap(Collections, (collections) => collections.add("mines", mines)).pipe(Effect.orDie)
).pipe(
  Layer.provideMerge(Collections.layer),
  Layer.provideMerge(
    Layer.unwrapScoped(
      Effect.map(Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped()), Home.layer)
    )
  ),
  Layer.provide(NodeContext.layer)
)

export const config = (input: Record<string, unknown> = {}): RunConfig =>
  Schema.decodeUnknownSync(RunConfig)({ topK: 2, recallK: 4, maxStep: 1, maxFailure: 1, ...input })

export const question = new Question({ id: "q1", text: "Which mine in Ghana was opened in 1897?" })

/** Why `unusedLlm` failed. */
export class SettingsRead extends Data.TaggedError("SettingsRead") {}

/** LLM settings that fail when built: the extractive engine must never build them. */
export const unusedLlm = Layer.effect(LlmSettings, Effect.fail(new SettingsRead()))

/** One retrieval of question `q1` through the engine's `Retriever` (recall 4, top 2). */
export const search = (queries: ReadonlyArray<string>, cfg = config()) =>
  Effect.flatMap(Retriever, (r) =>
    r.search({
      queries,
      recallK: 4,
      topK: 2,
      exclude: new Set(),
      rerankQuery: queries.join(" "),
      context: { questionId: "q1", runId: undefined, step: 0, language: "en", formats: structuredFormats, config: cfg }
    }))

const RerankRequest = Schema.Struct({ texts: Schema.Array(Schema.String) })

/** A TEI-style reranker on 127.0.0.1 that scores a document by whether it says "gold"; records every request. */
export const goldReranker = localServer((request) => ({
  status: 200,
  body: Schema.decodeUnknownSync(RerankRequest)(request.body).texts.map((text, index) => ({
    index,
    score: text.includes("gold") ? 0.9 : 0.1
  }))
}))
