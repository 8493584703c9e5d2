import { Data } from "effect"

/** A run's engine could not be built here (bad LLM settings, a missing collection). */
export class EngineUnavailable extends Data.TaggedError("EngineUnavailable")<{
  readonly runId: string
  readonly cause: unknown
}> {
  override get message(): string {
    const cause = this.cause
    return `the engine of run ${this.runId} could not start: ${
      typeof cause === "object" && cause !== null && "message" in cause ? String(cause.message) : String(cause)
    }`
  }
}
