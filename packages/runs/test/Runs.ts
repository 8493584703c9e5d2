import { defaultRunConfig } from "@deepnote-rag/core"
import { createRun, type NewRun, RunEvents, RunExecutor } from "@deepnote-rag/runs"
import { Store } from "@deepnote-rag/store"
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { sampleQuestions } from "./Engine.js"

/** The executor over an in-memory store, with run events and the Node platform: what one process's runs need. */
export const memoryServices = Layer.mergeAll(
  RunExecutor.layer().pipe(Layer.provideMerge(Layer.merge(Store.layer({ url: "sqlite::memory:" }), RunEvents.layer))),
  NodeContext.layer
)

/** Creates a run of the first `limit` sample questions (extractive defaults; `options` override); returns its id. */
export const newRun = (limit: number, options: Partial<NewRun> = {}) =>
  createRun({
    dataset: sampleQuestions,
    limit,
    config: defaultRunConfig,
    collection: "sample",
    promptSetHash: "extractive@test",
    ...options
  }).pipe(Effect.map((r) => r.run.id))
