import { Effect } from "effect"
import { LlmCallError, LlmModelNotServed, type LlmUnavailable } from "../Domain/LlmError.js"
import type { LlmSettingsData } from "../LlmSettings.js"
import type { EndpointPoolService } from "./EndpointPool.js"

/** Where a model is served, as the endpoints' `/v1/models` say. */
export interface ModelPlacement {
  /** The model asked for (undefined: none configured, so the settings' or the first served one). */
  readonly requested: string | undefined
  /** The model id calls will use. */
  readonly model: string
  /** True when no one configured it: it is the first `/v1/models` id of the first endpoint that answered. */
  readonly discovered: boolean
  /** The endpoints serving it, with vLLM's `max_model_len` (unverified ones, whose `/v1/models` did not answer, too). */
  readonly endpoints: ReadonlyArray<{ readonly url: string; readonly maxModelLen: number | undefined }>
}

const quoted = (models: ReadonlyArray<string> | undefined) =>
  models === undefined ? "did not answer /v1/models" : `serves ${models.map((m) => `"${m}"`).join(", ") || "nothing"}`

/**
 * The startup check of an engine: asks every endpoint's `/v1/models` again, resolves each requested model (else the
 * settings', else the first served) and finds the endpoints serving it. A model no endpoint serves fails the check
 * with one message naming the model and every endpoint tried with what it serves.
 */
export const checkModels = (
  pool: EndpointPoolService,
  settings: LlmSettingsData,
  defaultModel: Effect.Effect<string, LlmUnavailable>,
  requested: ReadonlyArray<string | undefined>
): Effect.Effect<ReadonlyArray<ModelPlacement>, LlmCallError> =>
  Effect.gen(function*() {
    yield* pool.rediscover
    const placements: Array<ModelPlacement> = []
    const missing: Array<string> = []
    for (const wanted of [...new Set(requested)]) {
      const configured = wanted ?? settings.model
      const model = configured ?? (yield* defaultModel.pipe(
        Effect.mapError((last) => new LlmCallError({ message: last.message, attempts: 0, reason: "outage", last }))
      ))
      const serving = pool.endpoints.filter((e) => e.models?.includes(model))
      const unverified = pool.endpoints.filter((e) => e.models === undefined)
      const found = serving.length > 0 ? serving : unverified
      if (found.length === 0) missing.push(model)
      placements.push({
        requested: wanted,
        model,
        discovered: configured === undefined,
        endpoints: found.map((e) => ({ url: e.url, maxModelLen: e.maxModelLen }))
      })
    }
    if (missing.length > 0) {
      const message = `no LLM endpoint serves the model${missing.length > 1 ? "s" : ""} ${
        missing.map((m) => `"${m}"`).join(", ")
      }: ${pool.endpoints.map((e) => `${e.url} ${quoted(e.models)}`).join("; ")}`
      return yield* new LlmCallError({
        message,
        attempts: 0,
        reason: "permanent",
        last: new LlmModelNotServed({ model: missing[0]!, message })
      })
    }
    return placements
  })
