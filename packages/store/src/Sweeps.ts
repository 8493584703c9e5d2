import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { type StoreError, SweepNotFound } from "./Domain/Errors.js"
import { Sweep } from "./Domain/Sweep.js"
import { makeQueries } from "./internal/query.js"
import { byteOrder, now, orUndefined } from "./internal/sql.js"
import { makeSweepId } from "./RunIds.js"

const Grid = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** A page of `Sweeps.list`. */
export interface SweepsPage {
  /** Only the sweeps listed after this one (the last sweep of the previous page). */
  readonly before?: string | undefined
  /** Default 100. */
  readonly limit?: number | undefined
  /** Only the sweeps with at least one run this tenant started over HTTP (`run_owners`). */
  readonly withRunsOf?: string | undefined
}

/** Sweeps: named grids of runs (`RunManifest.sweep` names a run's cell). */
export interface SweepsService {
  readonly create: (input: {
    readonly grid: typeof Grid.Type
    readonly label?: string | undefined
    /** Default `s-YYYYMMDD-HHMMSS-xxxx`. */
    readonly id?: string | undefined
  }) => Effect.Effect<Sweep, StoreError>
  readonly get: (sweepId: string) => Effect.Effect<Sweep, SweepNotFound | StoreError>
  /** Newest first, a page at a time (keyset: an unknown `before` lists nothing). */
  readonly list: (page?: SweepsPage) => Effect.Effect<ReadonlyArray<Sweep>, StoreError>
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
    const text = byteOrder(sql)
    const selectPage = findAll({
      table: "sweeps",
      action: "listing sweeps",
      Request: Schema.Struct({
        before: Schema.optional(Schema.String),
        limit: Schema.Int,
        withRunsOf: Schema.optional(Schema.String)
      }),
      Result: SweepRow,
      execute: (page) =>
        sql`SELECT s.id, s.label, s.grid, s.created_at FROM sweeps s WHERE ${
          sql.and([
            ...(page.withRunsOf === undefined ? [] : [
              sql`EXISTS (SELECT 1 FROM runs r JOIN run_owners o ON o.run_id = r.id
                WHERE r.sweep_id = s.id AND o.tenant_id = ${page.withRunsOf})`
            ]),
            ...(page.before === undefined ? [] : [
              sql`(s.created_at${text}, s.id${text}) < (
                SELECT b.created_at${text}, b.id${text} FROM sweeps b WHERE b.id = ${page.before})`
            ])
          ])
        } ORDER BY s.created_at${text} DESC, s.id${text} DESC LIMIT ${page.limit}`
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
    const list = Effect.fn("Sweeps.list")(function*(page: SweepsPage = {}) {
      const rows = yield* selectPage({ before: page.before, limit: page.limit ?? 100, withRunsOf: page.withRunsOf })
      return rows.map(toSweep)
    })
    return Sweeps.of({ create, get, list })
  })

  static readonly layer: Layer.Layer<Sweeps, never, SqlClient.SqlClient> = Layer.effect(Sweeps, Sweeps.make)
}
