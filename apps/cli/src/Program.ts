import { printable } from "@deepnote-rag/retrieval"
import { ValidationError } from "@effect/cli"
import type { CommandExecutor } from "@effect/platform/CommandExecutor"
import type { FileSystem } from "@effect/platform/FileSystem"
import type { Path } from "@effect/platform/Path"
import type { Terminal } from "@effect/platform/Terminal"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { helpText, runCli, usageOf } from "./Cli.js"
import { processSettings } from "./config/ProcessSettings.js"
import { exitCodes, reportedError, UsageError } from "./Errors.js"
import { hoistGlobalOptions } from "./GlobalOptions.js"
import { asksForHelp, colourWhereWanted, helpFitted } from "./render/PlainConsole.js"
import { StandardStreams } from "./render/StandardStreams.js"
import { optionWithoutValue, usageErrorsInOneLine } from "./render/UsageErrorLine.js"
import { cliTelemetry } from "./telemetry/CliTelemetry.js"

/**
 * Exit codes scripts can rely on: 0 ok, 1 runtime failure, 2 usage error (bad flag, value, file or question), 3 a run
 * finished with failed questions, 4 another process executes the run, 130 stopped by a signal (resumable).
 */
export const exitCodeOf = (exit: Exit.Exit<unknown, unknown>): number => {
  if (Exit.isSuccess(exit)) return exitCodes.ok
  if (Cause.isInterruptedOnly(exit.cause)) return 130
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    if (ValidationError.isValidationError(error)) return exitCodes.usage
    const reported = reportedError(error)
    if (reported !== undefined) return reported.exitCode
  }
  return exitCodes.failure
}

/** The one line of the CLI's own errors (anything else was said by the command, or is a defect). */
const report = (writeStderr: (text: string) => void) => (error: unknown) =>
  Effect.sync(() => {
    const reported = reportedError(error)
    // one line, whatever the message quotes (a parser's message quotes the file's text, newlines included)
    if (reported !== undefined) writeStderr(`deepnote: ${printable(reported.message, 2000)}\n`)
  })

/**
 * The `deepnote` command line `args` (what follows the program's name), run to its exit code: results through
 * `Console`, everything else through `StandardStreams`, settings through the `ConfigProvider`. `main.ts` runs it as
 * the process (`launchedAs`: Node's path and the script's, as in `process.argv`); the CLI's tests run it in theirs.
 */
export const commandLine = (
  args: ReadonlyArray<string>,
  launchedAs: ReadonlyArray<string> = ["node", "deepnote"]
): Effect.Effect<number, never, StandardStreams | CommandExecutor | FileSystem | Path | Terminal> =>
  Effect.flatMap(StandardStreams, (streams) => {
    const hoisted = hoistGlobalOptions(args)
    const fitHelp = asksForHelp(hoisted)
      ? helpFitted(streams.stdoutColumns)
      : <A, E, R>(effect: Effect.Effect<A, E, R>) => effect
    // a line that ends in an option without its value is refused before @effect/cli misreads it
    const withoutValue = optionWithoutValue(hoisted, usageOf)
    const program = withoutValue === undefined
      ? runCli([...launchedAs.slice(0, 2), ...hoisted])
      : Effect.fail(new UsageError({ message: withoutValue }))
    return program.pipe(
      fitHelp,
      usageErrorsInOneLine(hoisted, helpText),
      colourWhereWanted(streams.stdoutIsTty),
      Effect.provide(Layer.merge(cliTelemetry, processSettings)),
      Effect.tapError(report(streams.writeStderr)),
      Effect.tapDefect((defect) =>
        Effect.sync(() => streams.writeStderr(`deepnote: internal error: ${Cause.pretty(Cause.die(defect))}\n`))
      ),
      Effect.exit,
      Effect.map(exitCodeOf)
    )
  })
