import { errorCode } from "@deepnote-rag/core"
import type { PlatformError } from "@effect/platform/Error"
import { Data } from "effect"

/** Bad input from the user (flag value, config file, question): exit code 2. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/** The command was valid but the work failed (unknown collection, server down): exit code 1. */
export class CommandFailed extends Data.TaggedError("CommandFailed")<{ readonly message: string }> {}

/**
 * A run (or resume) finished, but some questions failed: exit code 3. The report of why (grouped) and the command
 * that retries them were printed before; the message is the one-line summary.
 */
export class QuestionsFailed extends Data.TaggedError("QuestionsFailed")<{ readonly message: string }> {}

/** Another live process executes the run (it holds the run's lease): exit code 4. `--wait` waits for it instead. */
export class RunIsBusy extends Data.TaggedError("RunIsBusy")<{ readonly message: string }> {}

/** Why a file could not be read, in a few words: "no such file", "a directory", else the platform's message. */
export const unreadable = (e: PlatformError): string =>
  e._tag === "SystemError" && e.reason === "NotFound"
    ? "no such file"
    : errorCode(e.cause) === "EISDIR"
    ? "a directory, not a file"
    : e.message

/** Exit codes scripts can rely on (documented in the README). 130: stopped by SIGINT/SIGTERM (resumable). */
export const exitCodes = { ok: 0, failure: 1, usage: 2, questionsFailed: 3, busy: 4 } as const

/** An error the CLI reports itself: its message is the one line a user gets, and it ends the command with `exitCode`. */
interface ReportedError {
  readonly type: new(args: { readonly message: string }) => { readonly message: string }
  readonly exitCode: number
}

/** The errors whose message is the one line a user gets (anything else was said by the command, or is a defect). */
const reportedErrors: ReadonlyArray<ReportedError> = [
  { type: UsageError, exitCode: exitCodes.usage },
  { type: CommandFailed, exitCode: exitCodes.failure },
  { type: QuestionsFailed, exitCode: exitCodes.questionsFailed },
  { type: RunIsBusy, exitCode: exitCodes.busy }
]

/** The CLI's own error `error` is, with its exit code, or undefined for anything else. */
export const reportedError = (error: unknown): { readonly message: string; readonly exitCode: number } | undefined => {
  for (const { exitCode, type } of reportedErrors) {
    if (error instanceof type) return { message: error.message, exitCode }
  }
  return undefined
}
