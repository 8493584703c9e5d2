import { Schema } from "effect"

export const Health = Schema.Struct({ status: Schema.Literal("ok"), version: Schema.String })

export const Readiness = Schema.Struct({
  status: Schema.Literal("ready"),
  engine: Schema.String,
  store: Schema.Literal("ok"),
  activeRuns: Schema.Int,
  inFlightAsks: Schema.Int
})
