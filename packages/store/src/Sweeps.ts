import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import { type StoreError, SweepNotFound } from "./Domain/Errors.js"
import { Sweep } from "./Domain/Sweep.js"
import { decodeRowWith, fromJson, nowIso, sqlFailure, toJson } from "./internal/sql.js"
import { makeSweepId } from "./RunIds.js"

const Grid = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** Sweeps: named grids whose runs (`RunManifest.sweep`) share caches. */
export interface SweepsService {
  readonly create: (input: {
    readonly grid: typeof Grid.Type
    readonly label?: string | undefined
    /** Default `s-YYYYMMDD-HHMMSS-xxxx`. */
    readonly id?: string | undefined
  }) => Effect.Effect<Sweep, StoreError>
  readonly get: (sweepId: string) => Effect.Effect<Sweep, SweepNotFound | StoreError>
  /** Newest first. */
  readonly list: Effect.Effect<ReadonlyArray<Sweep>, StoreError>
}

const SweepRow = Schema.Struct({
  id: Schema.String,
  label: Schema.NullOr(Schema.String),
  grid: Schema.String,
  created_at: Schema.String
})
const decodeRow = decodeRowWith(SweepRow, "sweep row")
const decodeGrid = fromJson(Grid, "sweep grid")
const encodeGrid = toJson(Grid)

const toSweep = (row: unknown) =>
  Effect.gen(function*() {
    const r = yield* decodeRow(row)
    return new Sweep({
      id: r.id,
      label: r.label ?? undefined,
      grid: yield* decodeGrid(r.grid),
      createdAt: new Date(r.created_at)
    })
  })

export class Sweeps extends Context.Tag("@deepnote/store/Sweeps")<Sweeps, SweepsService>() {
  static readonly make = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const get = Effect.fn("Sweeps.get")(function*(sweepId: string) {
      yield* Effect.annotateCurrentSpan({ "deepnote.sweep.id": sweepId })
      const rows = yield* sql`SELECT * FROM sweeps WHERE id = ${sweepId}`.pipe(sqlFailure("reading a sweep"))
      if (rows[0] === undefined) return yield* new SweepNotFound({ sweepId })
      return yield* toSweep(rows[0])
    })
    const create: SweepsService["create"] = Effect.fn("Sweeps.create")(function*(input) {
      const id = input.id ?? (yield* makeSweepId)
      yield* Effect.annotateCurrentSpan({ "deepnote.sweep.id": id })
      const createdAt = yield* nowIso
      yield* sql`INSERT INTO sweeps ${
        sql.insert({ id, label: input.label ?? null, grid: yield* encodeGrid(input.grid), created_at: createdAt })
      }`.pipe(sqlFailure("creating a sweep"))
      return new Sweep({ id, label: input.label, grid: input.grid, createdAt: new Date(createdAt) })
    })
    const list = sql`SELECT * FROM sweeps ORDER BY created_at DESC, id DESC`.pipe(
      sqlFailure("listing sweeps"),
      Effect.flatMap(Effect.forEach(toSweep)),
      Effect.withSpan("Sweeps.list")
    )
    return Sweeps.of({ create, get, list })
  })

  static readonly layer: Layer.Layer<Sweeps, never, SqlClient.SqlClient> = Layer.effect(Sweeps, Sweeps.make)
}
