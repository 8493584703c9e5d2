import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { StoreError } from "./Domain/Errors.js"
import { decodeRowWith, nowIso, sqlFailure } from "./internal/sql.js"

/** Who started a run through the HTTP app, and whether the server resumes it when it starts. */
export interface RunOwner {
  readonly runId: string
  readonly tenantId: string
  readonly autoResume: boolean
}

export interface RunOwnersService {
  readonly record: (runId: string, tenantId: string) => Effect.Effect<void, StoreError>
  readonly get: (runId: string) => Effect.Effect<Option.Option<RunOwner>, StoreError>
  /** The tenant's run ids, newest first. */
  readonly runsOf: (
    tenantId: string,
    options?: { readonly limit?: number }
  ) => Effect.Effect<ReadonlyArray<string>, StoreError>
  /** Cancelled runs are not resumed on startup; a resume request turns this back on. */
  readonly setAutoResume: (runId: string, autoResume: boolean) => Effect.Effect<void, StoreError>
  /** Server-started runs left `created`, `running` or `interrupted` with auto-resume on, oldest first. */
  readonly unfinished: Effect.Effect<ReadonlyArray<RunOwner>, StoreError>
}

const OwnerRow = Schema.Struct({ run_id: Schema.String, tenant_id: Schema.String, auto_resume: Schema.Number })
const decodeRow = decodeRowWith(OwnerRow, "run owner row")
const toOwner = (row: unknown) =>
  Effect.map(
    decodeRow(row),
    (r): RunOwner => ({ runId: r.run_id, tenantId: r.tenant_id, autoResume: r.auto_resume !== 0 })
  )

/** The `run_owners` table: tenant ownership of runs started over HTTP. */
export class RunOwners extends Context.Tag("@deepnote/store/RunOwners")<RunOwners, RunOwnersService>() {
  static readonly make = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return RunOwners.of({
      record: Effect.fn("RunOwners.record")(function*(runId: string, tenantId: string) {
        yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId, "deepnote.tenant.id": tenantId })
        yield* sql`INSERT INTO run_owners ${
          sql.insert({ run_id: runId, tenant_id: tenantId, auto_resume: 1, created_at: yield* nowIso })
        }`.pipe(sqlFailure("recording a run owner"))
      }),
      get: Effect.fn("RunOwners.get")(function*(runId: string) {
        const rows = yield* sql`SELECT * FROM run_owners WHERE run_id = ${runId}`.pipe(
          sqlFailure("reading a run owner")
        )
        return rows[0] === undefined ? Option.none() : Option.some(yield* toOwner(rows[0]))
      }),
      runsOf: Effect.fn("RunOwners.runsOf")(function*(tenantId: string, options?: { readonly limit?: number }) {
        const rows = yield* sql<{ run_id: string }>`SELECT run_id FROM run_owners WHERE tenant_id = ${tenantId}
          ORDER BY created_at DESC, run_id DESC LIMIT ${options?.limit ?? 100}`.pipe(
          sqlFailure("listing a tenant's runs")
        )
        return rows.map((r) => r.run_id)
      }),
      setAutoResume: Effect.fn("RunOwners.setAutoResume")(function*(runId: string, autoResume: boolean) {
        yield* sql`UPDATE run_owners SET auto_resume = ${autoResume ? 1 : 0} WHERE run_id = ${runId}`.pipe(
          sqlFailure("updating a run owner")
        )
      }),
      unfinished: sql`SELECT o.* FROM run_owners o JOIN runs r ON r.id = o.run_id
        WHERE o.auto_resume = 1 AND r.status IN ('created', 'running', 'interrupted') ORDER BY o.created_at, o.run_id`
        .pipe(
          sqlFailure("listing unfinished runs"),
          Effect.flatMap(Effect.forEach(toOwner)),
          Effect.withSpan("RunOwners.unfinished")
        )
    })
  })

  static readonly layer: Layer.Layer<RunOwners, never, SqlClient.SqlClient> = Layer.effect(RunOwners, RunOwners.make)
}
