import { Schema } from "effect"

/** A sweep: a grid of runs (datasets × configurations × seeds). The grid's shape is the executor's. */
export class Sweep extends Schema.Class<Sweep>("Sweep")({
  id: Schema.String,
  label: Schema.optional(Schema.String),
  grid: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  createdAt: Schema.Date
}) {}
