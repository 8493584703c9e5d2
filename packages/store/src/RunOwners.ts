import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { StoreError } from "./Domain/Errors.js"
import { makeQueries } from "./internal/query.js"
import { byteOrder, DbFlag, jsonTextField, nowIso } from "./internal/sql.js"

/** Who started a run through the HTTP app, and whether the server resumes it when it starts. */
export interface RunOwner {
  readonly runId: string
  readonly tenantId: string
  readonly autoResume: boolean
}

export interface RunsOfOptions {
  /** Default 100. */
  readonly limit?: number | undefined
  /** Only the runs listed after this one of the tenant's (the last run of the previous page). */
  readonly before?: string | undefined
  /** Only the runs over the dataset with this hash (the manifest's `dataset.hash`). */
  readonly datasetHash?: string | undefined
}

export interface RunOwnersService {
  readonly record: (runId: string, tenantId: string) => Effect.Effect<void, StoreError>
  readonly get: (runId: string) => Effect.Effect<Option.Option<RunOwner>, StoreError>
  /** The tenant's run ids, newest first. */
  readonly runsOf: (tenantId: string, options?: RunsOfOptions) => Effect.Effect<ReadonlyArray<string>, StoreError>
  /** Cancelled runs are not resumed on startup; a resume request turns this back on. */
  readonly setAutoResume: (runId: string, autoResume: boolean) => Effect.Effect<void, StoreError>
  /** Server-started runs left `created`, `running` or `interrupted` with auto-resume on, oldest first. */
  readonly unfinished: Effect.Effect<ReadonlyArray<RunOwner>, StoreError>
}

const OwnerRow = Schema.Struct({ run_id: Schema.String, tenant_id: Schema.String, auto_resume: DbFlag })
const toOwner = (r: typeof OwnerRow.Type): RunOwner => ({
  runId: r.run_id,
  tenantId: r.tenant_id,
  autoResume: r.auto_resume
})

/** The `run_owners` table: tenant ownership of runs started over HTTP. */
export class RunOwners extends Context.Tag("@deepnote-rag/store/RunOwners")<RunOwners, RunOwnersService>() {
  static readonly make: Effect.Effect<RunOwnersService, never, SqlClient.SqlClient> = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { execute, findAll, findOne } = makeQueries(sql)
    const text = byteOrder(sql)
    const insert = execute({
      table: "run_owners",
      action: "recording a run owner",
      Request: Schema.Struct({ ...OwnerRow.fields, created_at: Schema.String }),
      execute: (row) => sql`INSERT INTO run_owners ${sql.insert(row)}`
    })
    const selectOne = findOne({
      table: "run_owners",
      action: "reading a run owner",
      Request: Schema.String,
      Result: OwnerRow,
      execute: (runId) => sql`SELECT run_id, tenant_id, auto_resume FROM run_owners WHERE run_id = ${runId}`
    })
    const datasetHash = jsonTextField(sql, "r.manifest", ["dataset", "hash"])
    const selectOfTenant = findAll({
      table: "run_owners",
      action: "listing a tenant's runs",
      Request: Schema.Struct({
        tenantId: Schema.String,
        before: Schema.optional(Schema.String),
        datasetHash: Schema.optional(Schema.String),
        limit: Schema.Int
      }),
      Result: Schema.Struct({ run_id: Schema.String }),
      execute: (r) =>
        sql`SELECT o.run_id FROM run_owners o${
          r.datasetHash === undefined
            ? sql``
            : sql` JOIN runs r ON r.id = o.run_id AND ${datasetHash} = ${r.datasetHash}`
        } WHERE o.tenant_id = ${r.tenantId}${
          r.before === undefined ? sql`` : sql` AND (o.created_at${text}, o.run_id${text}) < (
            SELECT b.created_at${text}, b.run_id${text} FROM run_owners b
            WHERE b.run_id = ${r.before} AND b.tenant_id = ${r.tenantId})`
        }
          ORDER BY o.created_at${text} DESC, o.run_id${text} DESC LIMIT ${r.limit}`
    })
    const update = execute({
      table: "run_owners",
      action: "updating a run owner",
      Request: Schema.Struct({ runId: Schema.String, autoResume: DbFlag }),
      execute: (r) => sql`UPDATE run_owners SET auto_resume = ${r.autoResume} WHERE run_id = ${r.runId}`
    })
    const selectUnfinished = findAll({
      table: "run_owners",
      action: "listing unfinished runs",
      Request: DbFlag,
      Result: OwnerRow,
      execute: (autoResume) =>
        sql`SELECT o.run_id, o.tenant_id, o.auto_resume FROM run_owners o JOIN runs r ON r.id = o.run_id
          WHERE o.auto_resume = ${autoResume} AND r.status IN ('created', 'running', 'interrupted')
          ORDER BY o.created_at${text}, o.run_id${text}`
    })
    return RunOwners.of({
      record: Effect.fn("RunOwners.record")(function*(runId: string, tenantId: string) {
        yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId, "deepnote.tenant.id": tenantId })
        yield* insert({ run_id: runId, tenant_id: tenantId, auto_resume: true, created_at: yield* nowIso })
      }),
      get: Effect.fn("RunOwners.get")(function*(runId: string) {
        yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId })
        return Option.map(yield* selectOne(runId), toOwner)
      }),
      runsOf: Effect.fn("RunOwners.runsOf")(function*(tenantId: string, options?: RunsOfOptions) {
        yield* Effect.annotateCurrentSpan({ "deepnote.tenant.id": tenantId })
        const rows = yield* selectOfTenant({
          tenantId,
          before: options?.before,
          datasetHash: options?.datasetHash,
          limit: options?.limit ?? 100
        })
        return rows.map((r) => r.run_id)
      }),
      setAutoResume: Effect.fn("RunOwners.setAutoResume")(function*(runId: string, autoResume: boolean) {
        yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId })
        yield* update({ runId, autoResume })
      }),
      unfinished: selectUnfinished(true).pipe(
        Effect.map((rows) => rows.map(toOwner)),
        Effect.withSpan("RunOwners.unfinished")
      )
    })
  })

  static readonly layer: Layer.Layer<RunOwners, never, SqlClient.SqlClient> = Layer.effect(RunOwners, RunOwners.make)
}
