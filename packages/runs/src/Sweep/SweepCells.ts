import { type Run, RunStore, type Sweep, Sweeps } from "@deepnote-rag/store"
import { Effect, Option, Schema } from "effect"

const Cell = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * What a sweep stores as its grid: every valid cell in order (a run's `manifest.sweep.index` points into it) and the
 * knob grid the cells came from. Sweeps stored before `knobs` was recorded have `cells` only.
 */
export const StoredSweepGrid = Schema.Struct({
  cells: Schema.Array(Cell),
  knobs: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Array(Schema.Unknown) }))
})
export type StoredSweepGrid = typeof StoredSweepGrid.Type

/** One cell of a sweep: its knob values and its run, absent while the cell has not been created. */
export interface SweepCellState {
  readonly index: number
  readonly cell: Record<string, unknown>
  readonly run?: Run | undefined
}

/** A sweep with its knob grid and every cell, created or not. */
export interface SweepState {
  readonly sweep: Sweep
  readonly knobs: Record<string, ReadonlyArray<unknown>>
  readonly cells: ReadonlyArray<SweepCellState>
}

/** Largest number of runs read for one sweep. */
const maxRuns = 10_000

/** The knob values the cells take, per knob, in first-seen order (for sweeps stored without `knobs`). */
const knobsOf = (cells: ReadonlyArray<Record<string, unknown>>): Record<string, ReadonlyArray<unknown>> => {
  const knobs: Record<string, Array<unknown>> = {}
  for (const cell of cells) {
    for (const [key, value] of Object.entries(cell)) {
      const values = knobs[key] ?? (knobs[key] = [])
      if (!values.some((v) => JSON.stringify(v) === JSON.stringify(value))) values.push(value)
    }
  }
  return knobs
}

/**
 * A sweep's cells with their runs: the stored cell list (else the cells its runs name), each with its newest run.
 * Fails with `SweepNotFound` for an unknown id.
 */
export const sweepState = Effect.fn("sweepState")(function*(sweepId: string) {
  yield* Effect.annotateCurrentSpan({ "deepnote.sweep.id": sweepId })
  const sweep = yield* (yield* Sweeps).get(sweepId)
  const runs = yield* (yield* RunStore).listRuns({ sweepId, limit: maxRuns })
  const newest = new Map<number, Run>()
  // newest first: the first run seen for an index is the cell's current run
  for (const run of runs) {
    const index = run.manifest.sweep?.index
    if (index !== undefined && !newest.has(index)) newest.set(index, run)
  }
  const stored = Schema.decodeUnknownOption(StoredSweepGrid)(sweep.grid)
  const cells: Array<Record<string, unknown>> = Option.match(stored, {
    onSome: (grid) => [...grid.cells],
    onNone: () => [...newest.entries()].sort(([a], [b]) => a - b).map(([, run]) => ({ ...run.manifest.sweep?.cell }))
  })
  const knobs = Option.match(Option.flatMapNullable(stored, (grid) => grid.knobs), {
    onSome: (k) => k,
    onNone: () => knobsOf(cells)
  })
  return {
    sweep,
    knobs,
    cells: cells.map((cell, index): SweepCellState => ({ index, cell, run: newest.get(index) }))
  } satisfies SweepState
})
