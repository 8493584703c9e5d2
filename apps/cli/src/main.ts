#!/usr/bin/env node
import { ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Exit, Option } from "effect"
import { runCli } from "./Cli.js"
import { exitCodes } from "./Errors.js"
import { cliTelemetry } from "./telemetry/CliTelemetry.js"

/** Exit codes scripts can rely on: 0 ok, 1 runtime failure, 2 usage error (bad flag, value, file or question). */
const exitCodeOf = (exit: Exit.Exit<unknown, unknown>): number => {
  if (Exit.isSuccess(exit)) return exitCodes.ok
  if (Cause.isInterruptedOnly(exit.cause)) return 130
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    if (ValidationError.isValidationError(error)) return exitCodes.usage
    if (typeof error === "object" && error !== null && "_tag" in error && error._tag === "UsageError") {
      return exitCodes.usage
    }
  }
  return exitCodes.failure
}

const report = (error: unknown) =>
  Effect.sync(() => {
    if (typeof error === "object" && error !== null && "_tag" in error && "message" in error) {
      if (error._tag === "UsageError" || error._tag === "CommandFailed") {
        process.stderr.write(`deepnote: ${String(error.message)}\n`)
      }
    }
  })

runCli(process.argv).pipe(
  Effect.provide(cliTelemetry),
  Effect.tapError(report),
  Effect.tapDefect((defect) =>
    Effect.sync(() => process.stderr.write(`deepnote: internal error: ${Cause.pretty(Cause.die(defect))}\n`))
  ),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disableErrorReporting: true, teardown: (exit, onExit) => onExit(exitCodeOf(exit)) })
)
