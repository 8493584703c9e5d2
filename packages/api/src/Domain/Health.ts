import { Schema } from "effect"

export const Health = Schema.Struct({ status: Schema.Literal("ok"), version: Schema.String })

export const Readiness = Schema.Struct({
  status: Schema.Literal("ready"),
  engine: Schema.String,
  store: Schema.Literal("ok"),
  activeRuns: Schema.Int,
  inFlightAsks: Schema.Int,
  /** The LLM servers' health when the engine is `llm`: `ok`, or `degraded` with the endpoints that are not up. */
  llm: Schema.optional(Schema.Struct({
    state: Schema.Literal("ok", "degraded", "outage"),
    endpoints: Schema.Array(Schema.Struct({ url: Schema.String, condition: Schema.String }))
  }))
})
