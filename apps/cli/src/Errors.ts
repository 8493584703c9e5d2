import { Data } from "effect"

/** Bad input from the user (flag value, config file, question): exit code 2. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/** The command was valid but the work failed (unknown collection, server down): exit code 1. */
export class CommandFailed extends Data.TaggedError("CommandFailed")<{ readonly message: string }> {}

export const exitCodes = { ok: 0, failure: 1, usage: 2 } as const
