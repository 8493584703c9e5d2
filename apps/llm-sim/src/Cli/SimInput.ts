import { Either, Option, ParseResult, Schema } from "effect"
import { FaultKind, SimOptions, SimRole } from "../SimOptions.js"

/** `init=250,update=250,judge=0` → per-role reasoning means, with an error that names the bad entry. */
export const parseRoleMeans = (text: string): Either.Either<Partial<Record<SimRole, number>>, string> => {
  const means: Partial<Record<SimRole, number>> = {}
  for (const entry of text.split(",").map((e) => e.trim()).filter((e) => e.length > 0)) {
    const [role = "", value = ""] = entry.split("=").map((part) => part.trim())
    const tokens = Number(value)
    if (!Schema.is(SimRole)(role)) {
      return Either.left(
        `--reasoning-mean-tokens-by-role: unknown role "${role}" in "${entry}" (roles: ${SimRole.literals.join(", ")})`
      )
    }
    if (value === "" || !Number.isFinite(tokens) || tokens < 0) {
      return Either.left(`--reasoning-mean-tokens-by-role: "${entry}" needs a token count ≥ 0 (e.g. ${role}=250)`)
    }
    means[role] = tokens
  }
  return Either.right(means)
}

const commaList = (values: ReadonlyArray<string>) =>
  values.flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v.length > 0)

/** `--faults 429,stall` → fault kinds, or an error naming the unknown ones. */
export const parseFaults = (text: string): Either.Either<Array<FaultKind>, string> => {
  const kinds = commaList([text])
  const invalid = kinds.filter((k) => !Schema.is(FaultKind)(k))
  return invalid.length > 0
    ? Either.left(`--faults: unknown fault kind(s) ${invalid.join(", ")} (use ${FaultKind.literals.join(", ")})`)
    : Either.right(kinds.filter(Schema.is(FaultKind)))
}

/** `--model a,b --model c` → the ids served; none given → the default; one → a plain string, as before. */
export const parseModels = (values: ReadonlyArray<string>): string | Array<string> | undefined => {
  const ids = [...new Set(commaList(values))]
  return ids.length === 0 ? undefined : ids.length === 1 ? ids[0] : ids
}

/** The flag that sets an option, for error messages. */
const flagOf: Record<string, string> = {
  retryAfterSeconds: "--retry-after",
  prefixCaching: "--no-prefix-caching",
  structuredOutputs: "--no-structured-outputs"
}
const flagName = (key: PropertyKey | undefined) =>
  key === undefined
    ? "options"
    : flagOf[String(key)] ?? `--${String(key).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`

/**
 * Decodes the simulator's options from what the flags gave, as one line naming the first bad flag
 * (`--background-load: Expected a non-negative number, actual -1`).
 */
export const decodeSimOptions = (input: Readonly<Record<string, unknown>>): Either.Either<SimOptions, string> =>
  Schema.decodeUnknownEither(SimOptions)(input, { errors: "first", onExcessProperty: "error" }).pipe(
    Either.mapLeft((error) =>
      Option.match(Option.fromNullable(ParseResult.ArrayFormatter.formatErrorSync(error)[0]), {
        onNone: () => error.message.replace(/\s+/g, " "),
        onSome: (issue) => `${flagName(issue.path[0])}: ${issue.message.replace(/\s+/g, " ")}`
      })
    )
  )
