import { Config, Console, Effect, Option } from "effect"
import { helpWidth, wrapHelp } from "./Wrap.js"

/** ANSI SGR sequences (colour, bold): what @effect/cli's help and prompts write. */
const sgr = new RegExp(`${String.fromCharCode(0x1b)}\\[[0-9;]*m`, "gu")

/** `text` without colour codes. */
export const withoutColour = (text: string): string => text.replace(sgr, "")

const plain = (args: ReadonlyArray<unknown>): Array<unknown> =>
  args.map((a) => (typeof a === "string" ? withoutColour(a) : a))

/** A console that writes what `base` writes, without colour codes. */
export const plainConsole = (base: Console.Console): Console.Console => ({
  ...base,
  log: (...args) => base.log(...plain(args)),
  info: (...args) => base.info(...plain(args)),
  warn: (...args) => base.warn(...plain(args)),
  error: (...args) => base.error(...plain(args)),
  debug: (...args) => base.debug(...plain(args))
})

/**
 * Runs `effect` with colour only where it belongs: on a terminal, and unless `NO_COLOR` is set (no-color.org: any
 * non-empty value). Into a pipe or a file, help and messages are plain text.
 */
export const colourWhereWanted = (isTerminal: boolean) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    Config.option(Config.string("NO_COLOR")).pipe(Effect.orElseSucceed(() => Option.none())),
    (noColor) =>
      isTerminal && Option.getOrElse(noColor, () => "") === ""
        ? effect
        : Effect.flatMap(Effect.console, (console) => Effect.withConsole(effect, plainConsole(console)))
  )

/** Whether the command line asks for help (`--help`, `-h`, or no command at all), which is all `log` then writes. */
export const asksForHelp = (args: ReadonlyArray<string>): boolean =>
  args.length === 0 || args.some((arg) => arg === "--help" || arg === "-h")

/**
 * Runs `effect` with its help output fitted to `columns` (the terminal's; `COLUMNS`, then 80, when unknown): long
 * usage lines break at spaces instead of running past the screen.
 */
export const helpFitted = (columns: number | undefined) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    Config.option(Config.integer("COLUMNS")).pipe(Effect.orElseSucceed(() => Option.none())),
    (fromEnv) => {
      const width = helpWidth(columns ?? Option.getOrUndefined(fromEnv))
      const fit = (args: ReadonlyArray<unknown>) => args.map((a) => (typeof a === "string" ? wrapHelp(a, width) : a))
      return Effect.flatMap(Effect.console, (console) =>
        Effect.withConsole(effect, { ...console, log: (...args) => console.log(...fit(args)) }))
    }
  )
