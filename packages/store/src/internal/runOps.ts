import type { SqlClient, Statement } from "@effect/sql"
import { Effect, Schema } from "effect"
import { RunNotFound, StoreError, SweepNotFound } from "../Domain/Errors.js"
import { Run, RunManifest, RunStatus } from "../Domain/Run.js"
import { makeRunId } from "../RunIds.js"
import { decodeRowWith, fromJson, nowIso, optionalDate, sqlFailure, storeFailure, toJson } from "./sql.js"

const RunRow = Schema.Struct({
  id: Schema.String,
  sweep_id: Schema.NullOr(Schema.String),
  status: RunStatus,
  manifest: Schema.String,
  message: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String,
  started_at: Schema.NullOr(Schema.String),
  finished_at: Schema.NullOr(Schema.String),
  total: Schema.Int,
  pending: Schema.Int,
  running: Schema.Int,
  done: Schema.Int,
  failed: Schema.Int
})

const decodeRow = decodeRowWith(RunRow, "run row")
const decodeManifest = fromJson(RunManifest, "run manifest")
const encodeManifest = toJson(RunManifest)

export interface ListRunsOptions {
  readonly status?: RunStatus | undefined
  readonly sweepId?: string | undefined
  /** Newest first; default 100. */
  readonly limit?: number | undefined
}

export interface CreateRunInput {
  readonly manifest: RunManifest
  /** An explicit id (tests, or a caller that names its runs); default `r-YYYYMMDD-HHMMSS-xxxx`. */
  readonly id?: string | undefined
}

/** Run-level operations over the `runs` table. */
export const makeRunOps = (sql: SqlClient.SqlClient) => {
  const count = (status: string | undefined) =>
    status === undefined
      ? sql`(SELECT count(*) FROM items i WHERE i.run_id = r.id)`
      : sql`(SELECT count(*) FROM items i WHERE i.run_id = r.id AND i.status = ${status})`
  const select = (where: ReadonlyArray<Statement.Fragment>, limit: number) =>
    sql`SELECT r.*, ${count(undefined)} AS total, ${count("pending")} AS pending, ${count("running")} AS running,
      ${count("done")} AS done, ${count("failed")} AS failed
      FROM runs r WHERE ${sql.and(where)} ORDER BY r.created_at DESC, r.id DESC LIMIT ${limit}`

  const toRun = (row: unknown) =>
    Effect.gen(function*() {
      const r = yield* decodeRow(row)
      return new Run({
        id: r.id,
        sweepId: r.sweep_id ?? undefined,
        status: r.status,
        manifest: yield* decodeManifest(r.manifest),
        createdAt: new Date(r.created_at),
        updatedAt: new Date(r.updated_at),
        startedAt: optionalDate(r.started_at),
        finishedAt: optionalDate(r.finished_at),
        message: r.message ?? undefined,
        counts: { total: r.total, pending: r.pending, running: r.running, done: r.done, failed: r.failed }
      })
    })

  const getRun = (runId: string): Effect.Effect<Run, RunNotFound | StoreError> =>
    select([sql`r.id = ${runId}`], 1).pipe(
      Effect.mapError(storeFailure("reading a run")),
      Effect.flatMap((rows): Effect.Effect<Run, RunNotFound | StoreError> =>
        rows[0] === undefined ? Effect.fail(new RunNotFound({ runId })) : toRun(rows[0])
      )
    )

  const runExists = (runId: string): Effect.Effect<void, RunNotFound | StoreError> =>
    sql`SELECT 1 AS one FROM runs WHERE id = ${runId}`.pipe(
      Effect.mapError(storeFailure("reading a run")),
      Effect.flatMap((rows) => (rows.length === 0 ? Effect.fail(new RunNotFound({ runId })) : Effect.void))
    )

  const listRuns = (options: ListRunsOptions = {}) =>
    select(
      [
        ...(options.status === undefined ? [] : [sql`r.status = ${options.status}`]),
        ...(options.sweepId === undefined ? [] : [sql`r.sweep_id = ${options.sweepId}`])
      ],
      options.limit ?? 100
    ).pipe(Effect.mapError(storeFailure("listing runs")), Effect.flatMap(Effect.forEach(toRun)))

  const insertRun = (id: string, input: CreateRunInput, now: string) =>
    Effect.gen(function*() {
      const sweepId = input.manifest.sweep?.sweepId ?? null
      if (sweepId !== null) {
        const sweep = yield* sql`SELECT 1 AS one FROM sweeps WHERE id = ${sweepId}`
        if (sweep.length === 0) return yield* new SweepNotFound({ sweepId })
      }
      const rows = yield* sql`INSERT INTO runs ${
        sql.insert({
          id,
          sweep_id: sweepId,
          status: "created",
          manifest: yield* encodeManifest(input.manifest),
          created_at: now,
          updated_at: now
        })
      } ON CONFLICT (id) DO NOTHING RETURNING id`
      return rows.length > 0
    })

  const createRun = (input: CreateRunInput): Effect.Effect<Run, SweepNotFound | StoreError> =>
    Effect.gen(function*() {
      const now = yield* nowIso
      for (let attempt = 0; attempt < 8; attempt++) {
        const id = input.id ?? (yield* makeRunId)
        const created = yield* insertRun(id, input, now).pipe(sqlFailure("creating a run"))
        if (created) return yield* Effect.orDie(getRun(id))
        if (input.id !== undefined) return yield* new StoreError({ message: `a run with id ${id} already exists` })
      }
      return yield* new StoreError({ message: "could not allocate a unique run id" })
    })

  const setRunStatus = (runId: string, status: RunStatus, message?: string) =>
    Effect.gen(function*() {
      const now = yield* nowIso
      const final = status === "completed" || status === "failed" || status === "interrupted"
      const rows = yield* sql`UPDATE runs SET status = ${status}, updated_at = ${now},
          message = ${message ?? null},
          started_at = CASE WHEN ${status} = 'running' AND started_at IS NULL THEN ${now} ELSE started_at END,
          finished_at = CASE WHEN ${
        final ? 1 : 0
      } = 1 THEN ${now} WHEN ${status} = 'running' THEN NULL ELSE finished_at END
        WHERE id = ${runId} RETURNING id`.pipe(Effect.mapError(storeFailure("updating a run")))
      if (rows.length === 0) return yield* new RunNotFound({ runId })
      return yield* getRun(runId)
    })

  return { getRun, runExists, listRuns, createRun, setRunStatus }
}
