#!/usr/bin/env node
import { printable } from "@deepnote-rag/retrieval"
import { ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Exit, Option, Predicate } from "effect"
import { helpText, runCli, usageOf } from "./Cli.js"
import { exitCodes, UsageError } from "./Errors.js"
import { hoistGlobalOptions } from "./GlobalOptions.js"
import { asksForHelp, colourWhereWanted, helpFitted } from "./render/PlainConsole.js"
import { optionWithoutValue, usageErrorsInOneLine } from "./render/UsageErrorLine.js"
import { cliTelemetry } from "./telemetry/CliTelemetry.js"

/**
 * Exit codes scripts can rely on: 0 ok, 1 runtime failure, 2 usage error (bad flag, value, file or question), 3 a run
 * finished with failed questions, 4 another process executes the run, 130 stopped by a signal (resumable).
 */
const exitCodeOf = (exit: Exit.Exit<unknown, unknown>): number => {
  if (Exit.isSuccess(exit)) return exitCodes.ok
  if (Cause.isInterruptedOnly(exit.cause)) return 130
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    if (ValidationError.isValidationError(error)) return exitCodes.usage
    if (Predicate.isTagged(error, "UsageError")) return exitCodes.usage
    if (Predicate.isTagged(error, "QuestionsFailed")) return exitCodes.questionsFailed
    if (Predicate.isTagged(error, "RunIsBusy")) return exitCodes.busy
  }
  return exitCodes.failure
}

const report = (error: unknown) =>
  Effect.sync(() => {
    if (typeof error === "object" && error !== null && "_tag" in error && "message" in error) {
      if (["UsageError", "CommandFailed", "QuestionsFailed", "RunIsBusy"].includes(String(error._tag))) {
        // one line, whatever the message quotes (a parser's message quotes the file's text, newlines included)
        process.stderr.write(`deepnote: ${printable(String(error.message), 2000)}\n`)
      }
    }
  })

const args = hoistGlobalOptions(process.argv.slice(2))
const fitHelp = asksForHelp(args)
  ? helpFitted(process.stdout.isTTY === true ? process.stdout.columns : undefined)
  : <A, E, R>(effect: Effect.Effect<A, E, R>) => effect

// a line that ends in an option without its value is refused before @effect/cli misreads it
const withoutValue = optionWithoutValue(args, usageOf)
const program = withoutValue === undefined
  ? runCli([...process.argv.slice(0, 2), ...args])
  : Effect.fail(new UsageError({ message: withoutValue }))

program.pipe(
  fitHelp,
  usageErrorsInOneLine(args, helpText),
  colourWhereWanted(process.stdout.isTTY === true),
  Effect.provide(cliTelemetry),
  Effect.tapError(report),
  Effect.tapDefect((defect) =>
    Effect.sync(() => process.stderr.write(`deepnote: internal error: ${Cause.pretty(Cause.die(defect))}\n`))
  ),
  Effect.provide(NodeContext.layer),
  // `disablePrettyLogger`: runMain would otherwise swap Effect's default logger for its pretty one on stdout, and the
  // telemetry's logger (stderr) would be added beside it — every log line twice, once in stdout's data.
  NodeRuntime.runMain({
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit, onExit) => onExit(exitCodeOf(exit))
  })
)
