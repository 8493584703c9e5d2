import { Schema } from "effect"
import { PageParams } from "./Paging.js"
import { RunView } from "./Runs.js"

/** One cell of a sweep: its knob values, and its run once created (`runId` absent: not created yet). */
export const SweepCellView = Schema.Struct({
  /** The knob values of this cell (e.g. `{ "maxStep": 2, "maxFailure": 1 }`). */
  cell: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  runId: Schema.optional(Schema.String),
  run: Schema.optional(RunView)
})
export type SweepCellView = typeof SweepCellView.Type

/** A sweep as the API shows it: its knob grid and every valid cell, in order. */
export class SweepView extends Schema.Class<SweepView>("SweepView")({
  id: Schema.String,
  label: Schema.optional(Schema.String),
  /** Knob → the values tried (e.g. `{ "maxStep": [1, 2, 3] }`). */
  grid: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  createdAt: Schema.Date,
  cells: Schema.Array(SweepCellView)
}) {}

/** `GET /v1/sweeps`: the sweeps newest first, a page at a time. */
export const ListSweepsParams = PageParams

export const SweepList = Schema.Struct({
  sweeps: Schema.Array(SweepView),
  /** Present when older entries exist: pass it as `before` for the next page. */
  nextBefore: Schema.optional(Schema.String)
})
