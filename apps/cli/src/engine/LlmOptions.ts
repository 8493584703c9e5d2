import {
  callerSource,
  environmentSource,
  fileSource,
  LlmSettings,
  type LlmSettingsData,
  type LlmSettingsError,
  parseEndpoint,
  resolveSettings,
  type SettingsSource,
  type WorkClass
} from "@deepnote-rag/llm"
import { HelpDoc, Options, ValidationError } from "@effect/cli"
import { Effect, Either, Layer, Option, Redacted } from "effect"
import { UsageError } from "../Errors.js"

/** Why a `--llm-url` value is refused, or undefined when it is a usable endpoint. */
export const llmUrlProblem = (raw: string): string | undefined => {
  const { maxNumSeqs, url } = parseEndpoint(raw)
  if (maxNumSeqs !== undefined && !(Number.isInteger(maxNumSeqs) && maxNumSeqs > 0)) {
    return `--llm-url ${raw}: the part after # must be a positive integer (the calls in flight to that server)`
  }
  if (!/^https?:\/\/[^\s]+$/.test(url)) return `--llm-url ${raw}: expected http(s)://host[:port][/v1]`
  try {
    new URL(url)
  } catch {
    return `--llm-url ${raw}: not a valid URL (a port is 1 to 65535)`
  }
  return undefined
}

/** Options of the LLM engine (`--engine llm`): where the OpenAI-compatible servers are. */
export const llmOptions = {
  urls: Options.text("llm-url").pipe(
    Options.withDescription(
      "OpenAI-compatible server base URL, e.g. http://127.0.0.1:8000/v1 (repeat for several servers; URL#N caps its in-flight calls; default: $DEEPNOTE_LLM_URL)"
    ),
    Options.repeated,
    Options.mapEffect((raws): Effect.Effect<Array<string>, ValidationError.ValidationError> => {
      const problem = raws.map(llmUrlProblem).find((p) => p !== undefined)
      return problem === undefined
        ? Effect.succeed(raws)
        : Effect.fail(ValidationError.invalidValue(HelpDoc.p(problem)))
    })
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

const flagNames: Record<string, string> = { endpoints: "--llm-url", apiKey: "--llm-api-key", cache: "--no-llm-cache" }

/** The flags as a settings source: only what was given. */
export const flagSource = (flags: LlmOptionValues): SettingsSource => ({
  values: {
    ...(flags.urls.length > 0 ? { endpoints: flags.urls.map(parseEndpoint) } : {}),
    ...(Option.isSome(flags.apiKey) ? { apiKey: Redacted.value(flags.apiKey.value) } : {}),
    ...(flags.noCache ? { cache: false } : {})
  },
  keyOf: (field) => flagNames[field] ?? "flags"
})

/**
 * The LLM servers a run recorded in its manifest, as the lowest settings source: `resume` goes back to them unless a
 * flag, the config file or `DEEPNOTE_LLM_URL` names others.
 */
export const recordedSource = (endpoints: ReadonlyArray<string>): SettingsSource => ({
  values: endpoints.length > 0 ? { endpoints: endpoints.map(parseEndpoint) } : {},
  keyOf: () => "the LLM servers the run recorded"
})

const usage = (e: LlmSettingsError) =>
  new UsageError({
    message: e.missingEndpoints ? "--llm-url is required for --engine llm (or set DEEPNOTE_LLM_URL)" : e.message
  })

/**
 * The LLM settings of a command, exactly as documented: flags > the config file's `llm` section > the environment
 * (`DEEPNOTE_LLM_*`) > defaults, merged field by field and decoded once; a bad value is a usage error naming the
 * field and where it came from. `workClass` is the kind of work the command's engine does (`ask`: interactive).
 */
export const resolveLlmSettings = (
  flags: LlmOptionValues,
  fromFile: unknown,
  workClass: WorkClass = "batch",
  configFile = "the config file",
  recorded: ReadonlyArray<string> = []
): Effect.Effect<LlmSettingsData, UsageError> =>
  Effect.gen(function*() {
    const file = yield* Either.match(fileSource(fromFile, configFile), {
      onLeft: (e) => Effect.fail(usage(e)),
      onRight: Effect.succeed
    })
    const environment = yield* Effect.mapError(environmentSource, usage)
    return yield* resolveSettings([
      callerSource({ workClass }),
      flagSource(flags),
      file,
      environment,
      recordedSource(recorded)
    ]).pipe(
      Effect.mapError(usage)
    )
  })

/** `resolveLlmSettings` as the layer the engine takes (built only when the engine is `llm`). */
export const llmSettingsLayer = (
  flags: LlmOptionValues,
  fromFile: unknown,
  workClass: WorkClass = "batch",
  recorded: ReadonlyArray<string> = []
): Layer.Layer<LlmSettings, UsageError> =>
  Layer.effect(LlmSettings, resolveLlmSettings(flags, fromFile, workClass, undefined, recorded))
