import { Effect, FiberRef } from "effect"
import { sharedOptions } from "../GlobalOptions.js"
import { withoutColour } from "./PlainConsole.js"

/**
 * @effect/cli reports a command line it cannot parse itself, before any command runs: it writes the error's help
 * document with `Console.error` — over several lines when there are several problems, without the program's name,
 * and, for a value of the wrong type, without the flag it was given to ("'many' is not a integer", "Expected one of
 * the following cases: extractive, llm"), and for an unknown or missing argument without the command it belongs to.
 * `usageErrorsInOneLine` rewrites exactly those writes as the CLI's other usage errors read: one line, `deepnote: `
 * first, the flag and the command named. What commands write (inside their handlers, marked by
 * `inCommand`) passes unchanged.
 */

/** Set while a command's handler runs: its console writes are its own, not @effect/cli's parse errors. */
export const inCommand: FiberRef.FiberRef<boolean> = FiberRef.unsafeMake(false)

/** Runs a command's handler as its own (see `usageErrorsInOneLine`). */
export const asCommand = <A, E, R>(handler: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.locally(handler, inCommand, true)

/** Flags that take one of a list of values, read from the help's usage (`[--engine extractive | llm]`). */
export interface ChoiceFlag {
  readonly flag: string
  readonly choices: ReadonlyArray<string>
}

export const choiceFlags = (help: string): ReadonlyArray<ChoiceFlag> =>
  Array.from(
    withoutColour(help).matchAll(/--([a-z][\w-]*) ([^\s|[\]()]+(?: \| [^\s|[\]()]+)+)/g),
    (match) => ({ flag: `--${match[1]}`, choices: (match[2] ?? "").split(" | ") })
  )

/** Each flag of the command line with the value it may have been given: `--limit=many`, or the next argument. */
const flagValues = (args: ReadonlyArray<string>): Array<{ readonly flag: string; readonly value: string }> =>
  args.flatMap((arg, i) => {
    if (!arg.startsWith("-")) return []
    const eq = arg.indexOf("=")
    if (eq > 0) return [{ flag: arg.slice(0, eq), value: arg.slice(eq + 1) }]
    const next = args[i + 1]
    return next === undefined ? [] : [{ flag: arg, value: next }]
  })

/** The one flag `value` was given to; undefined when none or several were. */
const flagGiven = (args: ReadonlyArray<string>, value: string): string | undefined => {
  const flags = new Set(flagValues(args).filter((given) => given.value === value).map((given) => given.flag))
  return flags.size === 1 ? [...flags][0] : undefined
}

/** The one flag given a value outside `choices` while its own choices are exactly those. */
const choiceFlagGiven = (
  args: ReadonlyArray<string>,
  choices: ReadonlyArray<string>,
  known: ReadonlyArray<ChoiceFlag>
): { readonly flag: string; readonly value: string } | undefined => {
  const takes = (flag: string) =>
    known.some((k) =>
      k.flag === flag && k.choices.length === choices.length && k.choices.every((c) => choices.includes(c))
    )
  const given = flagValues(args).filter(({ flag, value }) => !choices.includes(value) && takes(flag))
  return given.length === 1 ? given[0] : undefined
}

const article = (typeName: string) => (/^[aeiou]/.test(typeName) ? `an ${typeName}` : `a ${typeName}`)

/** The help's entry for `command` (`inspect`, `keys list`): its usage and description; undefined when none. */
const entryOf = (help: string, command: string): string | undefined => {
  const text = withoutColour(help)
  const start = text.search(new RegExp(`\\n {2}- ${command}(\\s|$)`))
  if (start < 0) return undefined
  const end = text.indexOf("\n  - ", start + 1)
  return text.slice(start, end < 0 ? undefined : end)
}

/** The command the line names: its leading one or two words, as the help lists a command. */
const commandOf = (args: ReadonlyArray<string>, help: string): string | undefined => {
  const [first, second] = args
  if (first === undefined || !/^[a-z][a-z-]*$/.test(first)) return undefined
  if (second !== undefined && /^[a-z][a-z-]*$/.test(second) && entryOf(help, `${first} ${second}`) !== undefined) {
    return `${first} ${second}`
  }
  return entryOf(help, first) === undefined ? undefined : first
}

/** Options every command takes from @effect/cli itself (not listed in a command's entry). */
const builtIn = new Set(["--help", "--log-level", "--completions", "--wizard", "--version"])

/** Whether the help's entry for `command` names the option `option`. */
const takesOption = (help: string, command: string, option: string): boolean =>
  option.startsWith("-") && (entryOf(help, command)?.split(/[\s[\]()]+/).includes(option) ?? false)

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Whether a command's usage line gives `option` (`--limit`, or an alias such as `-c`) a value. */
const takesValue = (usage: string, option: string): boolean => {
  const long = option.startsWith("--")
    ? option
    : Array.from(usage.matchAll(/\(\s*(-\w),\s+(--[\w-]+)/g)).find((alias) => alias[1] === option)?.[2]
  return long !== undefined && new RegExp(`(?:^|[\\s[(])${escaped(long)}\\s+[^\\s\\-[\\]()<|]`).test(usage)
}

/**
 * A command line that ends in an option that takes a value (`deepnote status --home`, `run … --limit`): @effect/cli
 * reads such an option as the command's positional argument ("unknown run id \"--home\"") or refuses it without
 * saying why. Returns the line to write instead, or undefined when the line does not end so. `usageOf` gives the
 * command the line names and its usage line (`Cli.ts`).
 */
export const optionWithoutValue = (
  args: ReadonlyArray<string>,
  usageOf: (args: ReadonlyArray<string>) => { readonly command: string; readonly usage: string } | undefined
): string | undefined => {
  const last = args.at(-1)
  if (last === undefined || !/^--?[a-z]/.test(last) || last.includes("=") || builtIn.has(last)) return undefined
  const named = usageOf(args)
  if (named === undefined || !takesValue(withoutColour(named.usage), last)) return undefined
  return `${last} needs a value (\`deepnote ${named.command} --help\` lists what it takes)`
}

/** The subcommands the help lists under `command` (`keys`: create, list, revoke); none for a plain command. */
const subcommandsOf = (help: string, command: string): Array<string> =>
  Array.from(withoutColour(help).matchAll(new RegExp(`\\n {2}- ${escaped(command)} ([a-z][a-z-]*)`, "g")), (m) => m[1]!)

/** Edits (insert, delete, replace) between two short words. */
const editDistance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}

/** ` (did you mean 'run'?)` when one of `names` is nearest to `given`, within two edits. */
const didYouMean = (given: string, names: ReadonlyArray<string>): string => {
  const distances = names.map((name) => editDistance(given, name))
  const nearest = Math.min(...distances)
  const near = names.filter((_, i) => distances[i] === nearest)
  return nearest <= 2 && near.length === 1 ? ` (did you mean '${near[0]}'?)` : ""
}

/**
 * "Invalid subcommand for deepnote - use one of …", which @effect/cli writes for an unknown command, for an unknown or
 * missing subcommand (`keys bogus`, `keys --tenant x`) and for a line that starts with an option it does not know:
 * which of those it was, and what to write.
 */
const noSuchCommand = (names: ReadonlyArray<string>, args: ReadonlyArray<string>, help: string): string => {
  const [first, second] = args
  const list = names.join(", ")
  if (first === undefined || first.startsWith("-")) {
    // an option before the command that is not one of the shared ones the entry point moves after it
    const command = args.find((arg) => names.includes(arg))
    return first !== undefined && command !== undefined
      ? `'${first}' cannot come before the command (only ${sharedOptions.join(", ")} can): put it after '${command}'`
      : `name a command first: one of ${list}`
  }
  if (!names.includes(first)) return `unknown command '${first}'${didYouMean(first, names)}: one of ${list}`
  const subcommands = subcommandsOf(help, first)
  if (second === undefined || second.startsWith("-")) {
    return `${first} needs a subcommand first: one of ${subcommands.join(", ")} (\`deepnote ${first} --help\`)`
  }
  return `unknown ${first} subcommand '${second}'${didYouMean(second, subcommands)}: one of ${subcommands.join(", ")}`
}

/** One line of @effect/cli's parse error, with the flag named where the command line shows which it was. */
const rewrite = (line: string, args: ReadonlyArray<string>, known: ReadonlyArray<ChoiceFlag>, help: string) => {
  const invalid = /^Invalid subcommand for \S+ - use one of (.*)$/.exec(line)
  if (invalid !== null) return noSuchCommand(invalid[1]!.split(", ").map((name) => name.replace(/'/g, "")), args, help)
  // @effect/cli does not say whose argument or option it is: the command is named (a shared option written before a
  // command that lacks it, `deepnote --home X inspect f`, is moved after the command, which then refuses it)
  const unknown = /^Received unknown argument: '(.*)'$/.exec(line)
  if (unknown !== null) {
    const given = unknown[1]!
    const command = commandOf(args, help)
    if (command === undefined) return `unknown argument '${given}'`
    // an option the command does take is refused after an unknown one that @effect/cli read as a positional value
    // (`status --bogus --home h`): the unknown one is named
    const refused = takesOption(help, command, given)
      ? args.find((arg) => /^--[a-z]/.test(arg) && !builtIn.has(arg) && !takesOption(help, command, arg.split("=")[0]!))
      : given
    return refused === undefined
      ? `${command} could not read its arguments at '${given}' (\`deepnote ${command} --help\` lists what it takes)`
      : `${command} does not take '${refused}' (\`deepnote ${command} --help\` lists what it takes)`
  }
  const missing = /^(?:Expected to find option: '(.*)'|Missing argument (<.*>))$/.exec(line)
  if (missing !== null) {
    const what = missing[1] ?? missing[2]
    const command = commandOf(args, help)
    return command === undefined ? `${what} is required` : `${command} needs ${what}`
  }
  const [, value, typeName] = /^'(.*)' is not a (\w+)$/.exec(line) ?? []
  if (value !== undefined && typeName !== undefined) {
    const flag = flagGiven(args, value)
    const what = `'${value}' is not ${article(typeName)}`
    return flag === undefined ? what : `${flag}: ${what}`
  }
  const notAChoice = /^Expected one of the following cases: (.*)$/.exec(line)
  if (notAChoice !== null) {
    const choices = notAChoice[1]!.split(", ")
    const given = choiceFlagGiven(args, choices, known)
    return given === undefined
      ? `expected one of: ${choices.join(", ")}`
      : `${given.flag} must be one of ${choices.join(", ")} (got '${given.value}')`
  }
  return line
}

/** @effect/cli's parse error (one or more problems, one per paragraph) as one line naming the flags. */
export const usageErrorLine = (
  text: string,
  args: ReadonlyArray<string>,
  help: string
): string => {
  const known = choiceFlags(help)
  return `deepnote: ${
    withoutColour(text).split("\n").map((line) => line.trim()).filter((line) => line !== "").map((line) =>
      rewrite(line, args, known, help)
    )
      .join("; ")
  }`
}

/**
 * Runs the CLI with @effect/cli's parse errors written as one line (`usageErrorLine`); `help` is the command's help
 * text (read only when @effect/cli reports a parse error: the flags that take a list of values).
 */
export const usageErrorsInOneLine =
  (args: ReadonlyArray<string>, help: () => string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(Effect.console, (console) =>
      Effect.withConsole(effect, {
        ...console,
        error: (...parts) =>
          Effect.flatMap(
            FiberRef.get(inCommand),
            (own) =>
              own || parts.some((part) => typeof part !== "string")
                ? console.error(...parts)
                : console.error(usageErrorLine(parts.join(" "), args, help()))
          )
      }))
