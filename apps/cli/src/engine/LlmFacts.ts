import type { RunConfig } from "@deepnote-rag/core"
import { LlmEngine, LlmSettings, type LlmSettingsData } from "@deepnote-rag/llm"
import { type EngineFacts, engineFacts } from "@deepnote-rag/runs"
import { Effect, Layer } from "effect"
import { CommandFailed } from "../Errors.js"

/**
 * The LLM engine's startup check before a run is created: every role's model must be served by some endpoint (exit 1
 * with one message naming the model and the endpoints tried); the facts found go into the run's manifest.
 */
export const llmEngineFacts = (
  settings: LlmSettingsData,
  config: RunConfig
): Effect.Effect<EngineFacts, CommandFailed> =>
  engineFacts(config).pipe(
    Effect.provide(LlmEngine.clientLayer.pipe(Layer.provide(Layer.succeed(LlmSettings, settings)))),
    Effect.mapError((e) => new CommandFailed({ message: e.message }))
  )
