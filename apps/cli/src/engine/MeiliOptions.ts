import { describeConfigFailure } from "@deepnote-rag/core"
import {
  meiliEnvironment,
  type MeiliOptions,
  meiliSettingProblem,
  type MeiliSettingsInput,
  mergeMeiliSettings,
  namesMeiliHost
} from "@deepnote-rag/retrieval"
import { Options } from "@effect/cli"
import { Duration, Effect, Option, ParseResult, Redacted, Schema } from "effect"
import { UsageError } from "../Errors.js"

/** Where the Meilisearch backend is (`index --backend meilisearch`, `--retriever meilisearch`). */
export const meiliOptions = {
  url: Options.text("meili-url").pipe(
    Options.withDescription(
      "Meilisearch server URL for --backend/--retriever meilisearch (default: $DEEPNOTE_MEILI_HOST, else http://127.0.0.1:7700)"
    ),
    Options.optional
  ),
  index: Options.text("meili-index").pipe(
    Options.withDescription("Meilisearch index uid (default: $DEEPNOTE_MEILI_INDEX, else deepnote)"),
    Options.optional
  ),
  apiKey: Options.redacted("meili-api-key").pipe(
    Options.withDescription("Meilisearch API key, sent as a bearer token (default: $DEEPNOTE_MEILI_API_KEY)"),
    Options.optional
  )
}

export interface MeiliFlagValues {
  readonly url: Option.Option<string>
  readonly index: Option.Option<string>
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
}

/** The config file's `meili` section: the same settings as `DEEPNOTE_MEILI_*`, durations in milliseconds. */
const FileSection = Schema.Struct({
  host: Schema.optional(Schema.String),
  apiKey: Schema.optional(Schema.String),
  index: Schema.optional(Schema.String),
  embedder: Schema.optional(Schema.String),
  semanticRatio: Schema.optional(Schema.Number),
  batchSize: Schema.optional(Schema.Number),
  timeoutMs: Schema.optional(Schema.Int.pipe(Schema.positive())),
  retries: Schema.optional(Schema.Number),
  taskTimeoutMs: Schema.optional(Schema.Int.pipe(Schema.positive()))
})

/** The first refused value of a source, as `where: problem`. */
const check = (source: MeiliSettingsInput, where: (field: keyof MeiliSettingsInput) => string) => {
  for (const [field, value] of Object.entries(source) as Array<[keyof MeiliSettingsInput, unknown]>) {
    if (value === undefined) continue
    const problem = meiliSettingProblem(field, value)
    if (problem !== undefined) return new UsageError({ message: `${where(field)}: ${problem}` })
  }
  return undefined
}

const flagNames: Partial<Record<keyof MeiliSettingsInput, string>> = {
  host: "--meili-url",
  index: "--meili-index",
  apiKey: "--meili-api-key"
}

const fromFile = (section: unknown, file: string) =>
  Effect.gen(function*() {
    if (section === undefined || section === null) return {}
    const decoded = yield* Schema.decodeUnknown(FileSection, { onExcessProperty: "error" })(section).pipe(
      Effect.mapError((e) => {
        const issue = ParseResult.ArrayFormatter.formatErrorSync(e)[0]
        const field = issue === undefined || issue.path.length === 0 ? "" : `.${issue.path.join(".")}`
        return new UsageError({ message: `meili${field} in ${file}: ${issue?.message ?? "invalid"}` })
      })
    )
    const source: MeiliSettingsInput = {
      host: decoded.host,
      apiKey: decoded.apiKey === undefined ? undefined : Redacted.make(decoded.apiKey),
      index: decoded.index,
      embedder: decoded.embedder,
      semanticRatio: decoded.semanticRatio,
      batchSize: decoded.batchSize,
      timeout: decoded.timeoutMs === undefined ? undefined : Duration.millis(decoded.timeoutMs),
      retries: decoded.retries,
      taskTimeout: decoded.taskTimeoutMs === undefined ? undefined : Duration.millis(decoded.taskTimeoutMs)
    }
    const refused = check(source, (field) => `meili.${field} in ${file}`)
    return refused === undefined ? source : yield* refused
  })

export interface MeiliSettings {
  readonly options: MeiliOptions
  /** Some source named the server (a flag, the config file or `DEEPNOTE_MEILI_HOST`), not only the default. */
  readonly named: boolean
}

/**
 * The Meilisearch settings of a command: flags > the config file's `meili` section > `DEEPNOTE_MEILI_*` > defaults,
 * field by field; a bad value is a usage error naming the flag, file key or variable.
 */
export const resolveMeiliSettings = (
  flags: MeiliFlagValues,
  section: unknown = undefined,
  configFile = "the config file"
): Effect.Effect<MeiliSettings, UsageError> =>
  Effect.gen(function*() {
    const given: MeiliSettingsInput = {
      host: Option.getOrUndefined(flags.url),
      index: Option.getOrUndefined(flags.index),
      apiKey: Option.getOrUndefined(flags.apiKey)
    }
    const refused = check(given, (field) => flagNames[field] ?? field)
    if (refused !== undefined) return yield* refused
    const file = yield* fromFile(section, configFile)
    const environment = yield* meiliEnvironment.pipe(
      Effect.mapError((e) => new UsageError({ message: describeConfigFailure(e) }))
    )
    const sources = [given, file, environment]
    return { options: mergeMeiliSettings(sources), named: namesMeiliHost(sources) }
  })

/**
 * The Meilisearch settings a configuration needs: resolved when `retriever` is `meilisearch`, none otherwise (then
 * a `--meili-*` flag is a usage error: it would be silently ignored; the config file's `meili` section may stay).
 */
export const meiliForConfig = (
  retriever: string,
  flags: MeiliFlagValues,
  section: unknown,
  configFile: string | undefined
): Effect.Effect<MeiliOptions | undefined, UsageError> => {
  if (retriever === "meilisearch") {
    return Effect.map(resolveMeiliSettings(flags, section, configFile), (s) => s.options)
  }
  const given = [Option.map(flags.url, () => "--meili-url"), Option.map(flags.index, () => "--meili-index")]
    .concat([Option.map(flags.apiKey, () => "--meili-api-key")])
    .flatMap(Option.toArray)
  return given.length === 0
    ? Effect.succeed(undefined)
    : Effect.fail(new UsageError({ message: `${given.join(", ")} applies to --retriever meilisearch` }))
}
