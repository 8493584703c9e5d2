import { decodeIssues, RunConfig } from "@deepnote-rag/core"
import { Config, Effect, HashMap, Option, type ParseResult, Schema } from "effect"
import { UsageError } from "../Errors.js"
import { readConfigFile } from "./ConfigFile.js"
import { envName, type Knob, knobs, parseKnobText } from "./Knobs.js"
import { type ConfigLayer, mergeLayers, setPath } from "./Layering.js"

export interface KnobInput {
  readonly values: Record<string, Option.Option<string | number>>
  readonly roles: Option.Option<HashMap.HashMap<string, string>>
  readonly configFile: Option.Option<string>
}

const flagOf = (path: ReadonlyArray<PropertyKey>): string => {
  const key = path.map(String)
  const knob = knobs.find((k) => k.path.join(".") === key.join("."))
  if (knob) return `--${knob.flag}`
  if (key[0] === "roles" && key.length === 3) return `--role ${key[1]}.${key[2]}`
  return key.join(".")
}

/** Formats a RunConfig decode error as one line naming the flag and field. */
export const describeConfigError = (error: ParseResult.ParseError): string => {
  const issues = decodeIssues(error)
  return issues
    .map((issue) =>
      issue.path.length === 0 ? issue.message : `${flagOf(issue.path)} (${issue.path.join(".")}): ${issue.message}`
    )
    .join("; ")
}

const fromEnvironment = Effect.gen(function*() {
  const layer: ConfigLayer = {}
  for (const knob of knobs) {
    const value = yield* Config.option(Config.string(envName(knob)))
    if (Option.isSome(value)) setPath(layer, knob.path, parseKnobText(knob.kind, value.value))
  }
  return layer
}).pipe(Effect.orDie)

const fromFlags = (input: KnobInput) =>
  Effect.gen(function*() {
    const layer: ConfigLayer = {}
    for (const knob of knobs as ReadonlyArray<Knob>) {
      const value = input.values[knob.flag]
      if (value !== undefined && Option.isSome(value)) setPath(layer, knob.path, value.value)
    }
    if (Option.isSome(input.roles)) {
      for (const [key, text] of input.roles.value) {
        const [role, field, ...rest] = key.split(".")
        const fields = ["model", "temperature", "topP", "maxTokens", "seed"]
        if (!role || !field || rest.length > 0 || !fields.includes(field)) {
          return yield* new UsageError({
            message: `--role ${key}=${text}: expected ROLE.FIELD=VALUE with FIELD one of ${fields.join(", ")}`
          })
        }
        setPath(
          layer,
          ["roles", role, field],
          field === "model" ? text : parseKnobText(field === "temperature" || field === "topP" ? "float" : "int", text)
        )
      }
    }
    return layer
  })

/** The effective configuration: flags > config file > environment > defaults, validated as one RunConfig. */
export const resolveRunConfig = (input: KnobInput) =>
  Effect.gen(function*() {
    const env = yield* fromEnvironment
    const file = Option.isSome(input.configFile) ? yield* readConfigFile(input.configFile.value) : undefined
    const flags = yield* fromFlags(input)
    const merged = mergeLayers(env, file?.run ?? {}, flags)
    const config = yield* Schema.decodeUnknown(RunConfig, { onExcessProperty: "error" })(merged).pipe(
      Effect.mapError((error) => new UsageError({ message: `invalid configuration: ${describeConfigError(error)}` }))
    )
    return { config, file }
  })
