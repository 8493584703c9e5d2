import { decodeIssues } from "@deepnote-rag/core"
import { Config, ConfigError, Data, Duration, Effect, Either, Option, Redacted, Schema } from "effect"
import { type LlmSettingsData, LlmSettingsSchema, parseEndpoint } from "./LlmSettingsSchema.js"

/**
 * One layer of LLM settings (flags, a config file's `llm` section, the environment): the fields it sets (encoded
 * form, as `LlmSettingsInput`), and how to name where a field came from in an error message.
 */
export interface SettingsSource {
  readonly values: Readonly<Record<string, unknown>>
  /** `--llm-url`, `llm.attemptTimeoutMs in deepnote.yaml`, `DEEPNOTE_LLM_ATTEMPT_TIMEOUT`. */
  readonly keyOf: (field: string) => string
}

/** The settings do not decode: each issue names the field and where its value came from. */
export class LlmSettingsError extends Data.TaggedError("LlmSettingsError")<{
  readonly message: string
  /** No source names any endpoint (callers turn this into "--llm-url is required …"). */
  readonly missingEndpoints: boolean
}> {}

type Kind = "urls" | "string" | "redacted" | "integer" | "number" | "boolean" | "duration"

/** Every setting's environment variable: `DEEPNOTE_LLM_*` only. Durations read as "30 seconds", "10 minutes". */
export const environmentKeys: ReadonlyArray<readonly [field: keyof LlmSettingsData, key: string, kind: Kind]> = [
  ["endpoints", "DEEPNOTE_LLM_URL", "urls"],
  ["apiKey", "DEEPNOTE_LLM_API_KEY", "redacted"],
  ["model", "DEEPNOTE_LLM_MODEL", "string"],
  ["perEndpointConcurrency", "DEEPNOTE_LLM_CONCURRENCY", "integer"],
  ["adaptiveConcurrency", "DEEPNOTE_LLM_ADAPTIVE_CONCURRENCY", "boolean"],
  ["metricsIntervalMs", "DEEPNOTE_LLM_METRICS_INTERVAL", "duration"],
  ["globalInFlight", "DEEPNOTE_LLM_GLOBAL_IN_FLIGHT", "integer"],
  ["rps", "DEEPNOTE_LLM_RPS", "number"],
  ["attemptTimeoutMs", "DEEPNOTE_LLM_ATTEMPT_TIMEOUT", "duration"],
  ["maxAttempts", "DEEPNOTE_LLM_MAX_ATTEMPTS", "integer"],
  ["outageToleranceMs", "DEEPNOTE_LLM_OUTAGE_TOLERANCE", "duration"],
  ["interactiveOutageToleranceMs", "DEEPNOTE_LLM_INTERACTIVE_OUTAGE_TOLERANCE", "duration"],
  ["interactivePriority", "DEEPNOTE_LLM_INTERACTIVE_PRIORITY", "integer"],
  ["batchPriority", "DEEPNOTE_LLM_BATCH_PRIORITY", "integer"],
  ["retryTokens", "DEEPNOTE_LLM_RETRY_TOKENS", "number"],
  ["retryTokensPerSuccess", "DEEPNOTE_LLM_RETRY_TOKENS_PER_SUCCESS", "number"],
  ["retryTokensPerSecond", "DEEPNOTE_LLM_RETRY_TOKENS_PER_SECOND", "number"],
  ["backoffBaseMs", "DEEPNOTE_LLM_BACKOFF_BASE", "duration"],
  ["backoffMaxMs", "DEEPNOTE_LLM_BACKOFF_MAX", "duration"],
  ["ejectAfter", "DEEPNOTE_LLM_EJECT_AFTER", "integer"],
  ["cooldownMs", "DEEPNOTE_LLM_COOLDOWN", "duration"],
  ["cooldownMaxMs", "DEEPNOTE_LLM_COOLDOWN_MAX", "duration"],
  ["healthIntervalMs", "DEEPNOTE_LLM_HEALTH_INTERVAL", "duration"],
  ["cache", "DEEPNOTE_LLM_CACHE", "boolean"],
  ["cacheFile", "DEEPNOTE_LLM_CACHE_FILE", "string"],
  ["structuredOutputs", "DEEPNOTE_LLM_STRUCTURED_OUTPUTS", "string"]
]

const read = (key: string, kind: Kind): Effect.Effect<unknown, LlmSettingsError> => {
  const opt = <A>(c: Config.Config<A>) => Config.option(c).pipe(Effect.map(Option.getOrUndefined))
  const value: Effect.Effect<unknown, ConfigError.ConfigError> = kind === "urls"
    ? Effect.map(opt(Config.array(Config.string(), key)), (urls) => {
      const listed = urls?.filter((u) => u.trim().length > 0).map(parseEndpoint)
      return listed === undefined || listed.length === 0 ? undefined : listed
    })
    : kind === "redacted"
    ? Effect.map(opt(Config.redacted(key)), (r) => r === undefined ? undefined : Redacted.value(r))
    : kind === "integer"
    ? opt(Config.integer(key))
    : kind === "number"
    ? opt(Config.number(key))
    : kind === "boolean"
    ? opt(Config.boolean(key))
    : kind === "duration"
    ? Effect.map(opt(Config.duration(key)), (d) => d === undefined ? undefined : Duration.toMillis(d))
    : opt(Config.string(key))
  return Effect.mapError(value, (e) =>
    new LlmSettingsError({
      message: `${key}: ${ConfigError.isInvalidData(e) ? e.message : String(e)}`,
      missingEndpoints: false
    }))
}

/** The `DEEPNOTE_LLM_*` variables that are set, read through `Config` (so tests use a `ConfigProvider`). */
export const environmentSource: Effect.Effect<SettingsSource, LlmSettingsError> = Effect.gen(function*() {
  const values: Record<string, unknown> = {}
  const problems: Array<string> = []
  for (const [field, key, kind] of environmentKeys) {
    const value = yield* Effect.either(read(key, kind))
    if (Either.isLeft(value)) problems.push(value.left.message)
    else if (value.right !== undefined) values[field] = value.right
  }
  if (problems.length > 0) {
    return yield* new LlmSettingsError({ message: problems.join("; "), missingEndpoints: false })
  }
  const keys = new Map<string, string>(environmentKeys.map(([field, key]) => [field, key]))
  return { values, keyOf: (field) => keys.get(field) ?? "the environment" }
})

const knownFields: ReadonlySet<string> = new Set(Object.keys(LlmSettingsSchema.fields))

/**
 * A config file's `llm` section: the settings' own field names (`endpoints`, `attemptTimeoutMs`, …); endpoints may be
 * written as URL strings (`"http://h:8000/v1#32"`). Unknown keys are refused.
 */
export const fileSource = (section: unknown, file: string): Either.Either<SettingsSource, LlmSettingsError> => {
  if (section === undefined || section === null) return Either.right({ values: {}, keyOf: () => file })
  if (typeof section !== "object" || Array.isArray(section)) {
    return Either.left(new LlmSettingsError({ message: `${file}: "llm" must be an object`, missingEndpoints: false }))
  }
  const values: Record<string, unknown> = { ...section }
  const unknown = Object.keys(values).filter((k) => !knownFields.has(k))
  if (unknown.length > 0) {
    return Either.left(
      new LlmSettingsError({
        message: `${file}: unknown LLM setting(s) ${unknown.map((k) => `llm.${k}`).join(", ")} (known: ${
          [...knownFields].join(", ")
        })`,
        missingEndpoints: false
      })
    )
  }
  if (Array.isArray(values["endpoints"])) {
    values["endpoints"] = values["endpoints"].map((e: unknown) => typeof e === "string" ? parseEndpoint(e) : e)
  }
  return Either.right({ values, keyOf: (field) => `llm.${field} in ${file}` })
}

/** Values set by the program itself (the work class of the engine a command builds), above every other source. */
export const callerSource = (values: Record<string, unknown>): SettingsSource => ({
  values,
  keyOf: (field) => `the caller's ${field}`
})

/**
 * The settings from their sources, highest precedence first (flags, config file, environment): merged field by field
 * (a field a source leaves out comes from the next), then decoded once. Errors name each field and its source.
 */
export const resolveSettings = (
  sources: ReadonlyArray<SettingsSource>
): Effect.Effect<LlmSettingsData, LlmSettingsError> =>
  Effect.suspend(() => {
    const merged: Record<string, unknown> = {}
    const from = new Map<string, SettingsSource>()
    for (const source of [...sources].reverse()) {
      for (const [field, value] of Object.entries(source.values)) {
        if (value === undefined) continue
        merged[field] = value
        from.set(field, source)
      }
    }
    if (merged["endpoints"] === undefined) {
      return Effect.fail(new LlmSettingsError({ message: "no LLM endpoint is set", missingEndpoints: true }))
    }
    return Schema.decodeUnknown(LlmSettingsSchema)(merged, { errors: "all", onExcessProperty: "error" }).pipe(
      Effect.mapError((e) => {
        const issues = decodeIssues(e).map((issue) => {
          const field = String(issue.path[0] ?? "")
          const source = from.get(field)
          return `${issue.path.join(".") || "llm"}: ${issue.message}${source ? ` (from ${source.keyOf(field)})` : ""}`
        })
        return new LlmSettingsError({ message: `invalid LLM settings: ${issues.join("; ")}`, missingEndpoints: false })
      })
    )
  })
