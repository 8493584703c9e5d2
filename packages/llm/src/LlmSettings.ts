import { ConfigError, Context, Effect, Layer, Schema } from "effect"
import { type LlmSettingsData, type LlmSettingsInput, LlmSettingsSchema } from "./LlmSettingsSchema.js"
import { environmentSource, resolveSettings } from "./LlmSettingsSources.js"

export * from "./LlmSettingsSchema.js"
export * from "./LlmSettingsSources.js"

/** The decoded LLM settings. */
export class LlmSettings extends Context.Tag("@deepnote-rag/llm/LlmSettings")<LlmSettings, LlmSettingsData>() {
  /** From a plain object (tests, programs). Invalid input is a defect naming the field. */
  static readonly layer = (input: LlmSettingsInput) =>
    Layer.effect(LlmSettings, Schema.decodeUnknown(LlmSettingsSchema)(input, { errors: "all" }).pipe(Effect.orDie))

  /**
   * From `Config` alone: every `DEEPNOTE_LLM_*` key of `environmentKeys` (`DEEPNOTE_LLM_URL` comma-separated, `url#N`
   * fixing that endpoint's concurrency; durations such as "60 seconds"). Applications that also take flags and a
   * config file merge them with `resolveSettings([flags, file, environment])` instead.
   */
  static readonly layerConfig = Layer.effect(
    LlmSettings,
    Effect.flatMap(environmentSource, (env) => resolveSettings([env])).pipe(
      Effect.mapError((e) =>
        ConfigError.InvalidData(
          ["DEEPNOTE_LLM_URL"],
          e.missingEndpoints ? "no LLM endpoint: set DEEPNOTE_LLM_URL" : e.message
        )
      )
    )
  )
}
