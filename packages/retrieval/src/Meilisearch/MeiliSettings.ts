import { Config, ConfigError, type Duration, Effect, Either, Option, type Redacted } from "effect"

export interface MeiliOptions {
  /** e.g. `http://127.0.0.1:7700`. */
  readonly host: string
  /** Sent as `Authorization: Bearer …`: the master key or an API key with the actions the caller needs. */
  readonly apiKey?: Redacted.Redacted | undefined
  /** The index uid. */
  readonly index: string
  /** Hybrid search: the embedder configured on the index, and the share of semantic results (0…1, default 0.5). */
  readonly embedder?: string | undefined
  readonly semanticRatio?: number | undefined
  /** Documents per upload task. Default 1000. */
  readonly batchSize?: number | undefined
  /** Time limit of one HTTP attempt. Default 30 s. */
  readonly timeout?: Duration.DurationInput | undefined
  /** Retries of transient failures (connection errors, timeouts, 408/429/5xx). Default 3. */
  readonly retries?: number | undefined
  /** How long one task (settings, upload) may take until it succeeds or fails. Default 120 s. */
  readonly taskTimeout?: Duration.DurationInput | undefined
}

export const defaultMeiliHost = "http://127.0.0.1:7700"
export const defaultMeiliIndex = "deepnote"

/**
 * The Meilisearch settings one source gives (flags, a config file's `meili` section, the environment): any of the
 * options, each possibly unset (`mergeMeiliSettings` picks field by field).
 */
export type MeiliSettingsInput = { readonly [K in keyof MeiliOptions]?: MeiliOptions[K] | undefined }

/** Each setting's `DEEPNOTE_MEILI_*` variable. */
export const meiliEnvironmentKeys = {
  host: "DEEPNOTE_MEILI_HOST",
  apiKey: "DEEPNOTE_MEILI_API_KEY",
  index: "DEEPNOTE_MEILI_INDEX",
  embedder: "DEEPNOTE_MEILI_EMBEDDER",
  semanticRatio: "DEEPNOTE_MEILI_SEMANTIC_RATIO",
  batchSize: "DEEPNOTE_MEILI_BATCH_SIZE",
  timeout: "DEEPNOTE_MEILI_TIMEOUT",
  retries: "DEEPNOTE_MEILI_RETRIES",
  taskTimeout: "DEEPNOTE_MEILI_TASK_TIMEOUT"
} as const satisfies Record<keyof MeiliSettingsInput, string>

/** Why a setting's value is refused, or undefined when it is usable. */
export const meiliSettingProblem = (field: keyof MeiliSettingsInput, value: unknown): string | undefined => {
  switch (field) {
    case "host":
      return typeof value === "string" && /^https?:\/\/\S+$/.test(value) &&
          Either.isRight(Either.try(() => new URL(value)))
        ? undefined
        : "expected an http(s) URL such as http://127.0.0.1:7700"
    case "index":
      // Meilisearch index uids: alphanumerics, hyphens and underscores, at most 400 bytes
      return typeof value === "string" && /^[A-Za-z0-9_-]{1,400}$/.test(value)
        ? undefined
        : "an index uid has only letters, digits, - and _ (at most 400)"
    case "semanticRatio":
      return typeof value === "number" && value >= 0 && value <= 1 ? undefined : "must be between 0 and 1"
    case "batchSize":
      return typeof value === "number" && Number.isInteger(value) && value > 0
        ? undefined
        : "must be a positive integer"
    case "retries":
      return typeof value === "number" && Number.isInteger(value) && value >= 0 ? undefined : "must be an integer ≥ 0"
    default:
      return undefined
  }
}

/** A set variable, decoded and checked; a refused value is `InvalidData` at the variable's name. */
const read = <A>(field: keyof MeiliSettingsInput, config: Config.Config<A>) =>
  Effect.flatMap(Config.option(config), (value): Effect.Effect<A | undefined, ConfigError.ConfigError> => {
    if (Option.isNone(value)) return Effect.succeed(undefined)
    const problem = meiliSettingProblem(field, value.value)
    return problem === undefined
      ? Effect.succeed(value.value)
      : Effect.fail(ConfigError.InvalidData([meiliEnvironmentKeys[field]], problem))
  })

/** The `DEEPNOTE_MEILI_*` variables that are set (read through `Config`, so tests use a `ConfigProvider`). */
export const meiliEnvironment: Effect.Effect<MeiliSettingsInput, ConfigError.ConfigError> = Effect.all({
  host: read("host", Config.string(meiliEnvironmentKeys.host)),
  apiKey: read("apiKey", Config.redacted(meiliEnvironmentKeys.apiKey)),
  index: read("index", Config.string(meiliEnvironmentKeys.index)),
  embedder: read("embedder", Config.string(meiliEnvironmentKeys.embedder)),
  semanticRatio: read("semanticRatio", Config.number(meiliEnvironmentKeys.semanticRatio)),
  batchSize: read("batchSize", Config.integer(meiliEnvironmentKeys.batchSize)),
  timeout: read("timeout", Config.duration(meiliEnvironmentKeys.timeout)),
  retries: read("retries", Config.integer(meiliEnvironmentKeys.retries)),
  taskTimeout: read("taskTimeout", Config.duration(meiliEnvironmentKeys.taskTimeout))
})

/** Merges sources field by field, the first that sets a field wins (flags, file, environment), then the defaults. */
export const mergeMeiliSettings = (sources: ReadonlyArray<MeiliSettingsInput>): MeiliOptions => {
  const pick = <K extends keyof MeiliSettingsInput>(field: K): MeiliSettingsInput[K] =>
    sources.find((s) => s[field] !== undefined)?.[field]
  return {
    host: pick("host") ?? defaultMeiliHost,
    index: pick("index") ?? defaultMeiliIndex,
    apiKey: pick("apiKey"),
    embedder: pick("embedder"),
    semanticRatio: pick("semanticRatio"),
    batchSize: pick("batchSize"),
    timeout: pick("timeout"),
    retries: pick("retries"),
    taskTimeout: pick("taskTimeout")
  }
}

/** Whether some source names the server (the HTTP server offers `retriever: meilisearch` only then). */
export const namesMeiliHost = (sources: ReadonlyArray<MeiliSettingsInput>): boolean =>
  sources.some((s) => s.host !== undefined)

/**
 * The options from `DEEPNOTE_MEILI_HOST` (default http://127.0.0.1:7700), `_API_KEY`, `_INDEX` (default deepnote),
 * `_EMBEDDER`, `_SEMANTIC_RATIO`, `_BATCH_SIZE` (1000), `_TIMEOUT` (30 seconds per attempt), `_RETRIES` (3) and
 * `_TASK_TIMEOUT` (120 seconds per task).
 */
export const meiliOptionsConfig: Effect.Effect<MeiliOptions, ConfigError.ConfigError> = Effect.map(
  meiliEnvironment,
  (env) => mergeMeiliSettings([env])
)
