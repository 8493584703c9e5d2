import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { type StoreError, SweepNotFound } from "./Domain/Errors.js"
import { Sweep } from "./Domain/Sweep.js"
import { makeQueries } from "./internal/query.js"
import { byteOrder, now, orUndefined } from "./internal/sql.js"
import { makeSweepId } from "./RunIds.js"

const Grid = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** Sweeps: named grids of runs (`RunManifest.sweep` names a run's cell). */
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
  grid: Schema.parseJson(Grid),
  created_at: Schema.Date
})

const toSweep = (r: typeof SweepRow.Type) =>
  new Sweep({ id: r.id, label: orUndefined(r.label), grid: r.grid, createdAt: r.created_at })

export class Sweeps extends Context.Tag("@deepnote-rag/store/Sweeps")<Sweeps, SweepsService>() {
  static readonly make: Effect.Effect<SweepsService, never, SqlClient.SqlClient> = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { execute, findAll, findOne } = makeQueries(sql)
    const selectOne = findOne({
      table: "sweeps",
      action: "reading a sweep",
      Request: Schema.String,
      Result: SweepRow,
      execute: (sweepId) => sql`SELECT id, label, grid, created_at FROM sweeps WHERE id = ${sweepId}`
    })
    const selectAll = findAll({
      table: "sweeps",
      action: "listing sweeps",
      Request: Schema.Void,
      Result: SweepRow,
      execute: () =>
        sql`SELECT id, label, grid, created_at FROM sweeps
          ORDER BY created_at${byteOrder(sql)} DESC, id${byteOrder(sql)} DESC`
    })
    const insert = execute({
      table: "sweeps",
      action: "creating a sweep",
      Request: SweepRow,
      execute: (row) => sql`INSERT INTO sweeps ${sql.insert(row)}`
    })
    const get = Effect.fn("Sweeps.get")(function*(sweepId: string) {
      yield* Effect.annotateCurrentSpan({ "deepnote.sweep.id": sweepId })
      const row = yield* selectOne(sweepId)
      if (Option.isNone(row)) return yield* new SweepNotFound({ sweepId })
      return toSweep(row.value)
    })
    const create: SweepsService["create"] = Effect.fn("Sweeps.create")(function*(input) {
      const id = input.id ?? (yield* makeSweepId)
      yield* Effect.annotateCurrentSpan({ "deepnote.sweep.id": id })
      const createdAt = yield* now
      yield* insert({ id, label: input.label ?? null, grid: input.grid, created_at: createdAt })
      return new Sweep({ id, label: input.label, grid: input.grid, createdAt })
    })
    const list = selectAll(undefined).pipe(
      Effect.map((rows) => rows.map(toSweep)),
      Effect.withSpan("Sweeps.list")
    )
    return Sweeps.of({ create, get, list })
  })

  static readonly layer: Layer.Layer<Sweeps, never, SqlClient.SqlClient> = Layer.effect(Sweeps, Sweeps.make)
}
