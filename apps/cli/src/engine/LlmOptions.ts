import { LlmSettings, LlmSettingsSchema, parseEndpoint, type WorkClass } from "@deepnote/llm"
import { Options } from "@effect/cli"
import { Effect, Layer, Option, ParseResult, Redacted, Schema } from "effect"
import { UsageError } from "../Errors.js"

/** Options of the LLM engine (`--engine llm`): where the OpenAI-compatible servers are. */
export const llmOptions = {
  urls: Options.text("llm-url").pipe(
    Options.withDescription(
      "OpenAI-compatible server base URL, e.g. http://127.0.0.1:8000/v1 (repeat for several servers; URL#N caps its in-flight calls; default: $DEEPNOTE_LLM_URL)"
    ),
    Options.repeated
  ),
  apiKey: Options.redacted("llm-api-key").pipe(
    Options.withDescription("bearer token for the LLM servers (default: $DEEPNOTE_LLM_API_KEY)"),
    Options.optional
  ),
  noCache: Options.boolean("no-llm-cache").pipe(
    Options.withDescription("do not read or write the on-disk LLM response cache")
  )
}

export interface LlmOptionValues {
  readonly urls: ReadonlyArray<string>
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
  readonly noCache: boolean
}

/**
 * LLM settings: `--llm-url`/`--llm-api-key` flags > the config file's `llm` section > the environment
 * (`DEEPNOTE_LLM_*`). Invalid settings are a usage error naming the field.
 */
export const llmSettingsLayer = (
  flags: LlmOptionValues,
  fromFile: unknown,
  workClass: WorkClass = "batch"
): Layer.Layer<LlmSettings, UsageError> => {
  const file = typeof fromFile === "object" && fromFile !== null ? fromFile as Record<string, unknown> : undefined
  if (flags.urls.length === 0 && file === undefined) {
    const fromEnv = flags.noCache || workClass !== "batch"
      ? Layer.effect(
        LlmSettings,
        Effect.map(LlmSettings, (s) => ({ ...s, workClass, ...(flags.noCache ? { cache: false } : {}) }))
      ).pipe(
        Layer.provide(LlmSettings.layerConfig)
      )
      : LlmSettings.layerConfig
    return fromEnv.pipe(
      Layer.mapError((e) =>
        new UsageError({
          message: `LLM settings from the environment: ${e.message} (set --llm-url or DEEPNOTE_LLM_URL)`
        })
      )
    )
  }
  const input = {
    ...file,
    ...(flags.urls.length > 0 ? { endpoints: flags.urls.map(parseEndpoint) } : {}),
    ...(Option.isSome(flags.apiKey) ? { apiKey: Redacted.value(flags.apiKey.value) } : {}),
    ...(flags.noCache ? { cache: false } : {}),
    workClass
  }
  return Layer.effect(
    LlmSettings,
    Schema.decodeUnknown(LlmSettingsSchema)(input, { errors: "all" }).pipe(
      Effect.mapError((e) =>
        new UsageError({
          message: `invalid LLM settings: ${
            ParseResult.ArrayFormatter.formatErrorSync(e).map((i) => `${i.path.join(".") || "llm"}: ${i.message}`).join(
              "; "
            )
          }`
        })
      )
    )
  )
}
