import type { Question } from "@deepnote-rag/core"
import type { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { RunNotFound, StoreError, SweepNotFound } from "../Domain/Errors.js"
import { Run, RunExecution, RunManifest, RunStatus } from "../Domain/Run.js"
import { makeRunId } from "../RunIds.js"
import { makeQueries } from "./query.js"
import { Id, NewRun, RunFilter, RunRow, StatusChange, toRun } from "./runRows.js"
import { byteOrder, DbInt, jsonTextField, nowIso } from "./sql.js"

export interface ListRunsOptions {
  readonly status?: RunStatus | undefined
  readonly sweepId?: string | undefined
  /** Only runs over the dataset with this hash (the manifest's `dataset.hash`). */
  readonly datasetHash?: string | undefined
  /** Newest first; default 100. */
  readonly limit?: number | undefined
  /** Only the runs listed after this one (the last run of the previous page); none when it does not exist. */
  readonly before?: string | undefined
}

export interface CreateRunInput {
  readonly manifest: RunManifest
  /** An explicit id (tests, or a caller that names its runs); default `r-YYYYMMDD-HHMMSS-xxxx`. */
  readonly id?: string | undefined
  /** Default `local`. */
  readonly execution?: RunExecution | undefined
  /**
   * The run's questions, added as pending items in the same transaction as the run (so a store that fails while the
   * items are written keeps no empty run). `RunStore.addItems` adds more later.
   */
  readonly questions?: ReadonlyArray<Question> | undefined
}

/** Run-level operations over the `runs` table. */
export const makeRunOps = (sql: SqlClient.SqlClient) => {
  const { findAll, findOne } = makeQueries(sql)
  const count = (status: string | undefined) =>
    status === undefined
      ? sql`(SELECT count(*) FROM items i WHERE i.run_id = r.id)`
      : sql`(SELECT count(*) FROM items i WHERE i.run_id = r.id AND i.status = ${status})`
  const text = byteOrder(sql)
  const datasetHash = jsonTextField(sql, "r.manifest", ["dataset", "hash"])

  const selectRuns = findAll({
    table: "runs",
    action: "reading runs",
    Request: RunFilter,
    Result: RunRow,
    execute: (filter) =>
      sql`SELECT r.id, r.sweep_id, r.status, r.manifest, r.message, r.created_at, r.updated_at, r.started_at,
        r.finished_at, r.execution, r.queue_generation, ${count(undefined)} AS total, ${count("pending")} AS pending, ${
        count("running")
      } AS running,
        ${count("done")} AS done, ${count("failed")} AS failed
        FROM runs r WHERE ${
        sql.and([
          ...(filter.runId === undefined ? [] : [sql`r.id = ${filter.runId}`]),
          ...(filter.status === undefined ? [] : [sql`r.status = ${filter.status}`]),
          ...(filter.sweepId === undefined ? [] : [sql`r.sweep_id = ${filter.sweepId}`]),
          ...(filter.datasetHash === undefined ? [] : [sql`${datasetHash} = ${filter.datasetHash}`]),
          ...(filter.before === undefined ? [] : [
            sql`(r.created_at${text}, r.id${text}) < (
              SELECT b.created_at${text}, b.id${text} FROM runs b WHERE b.id = ${filter.before})`
          ])
        ])
      } ORDER BY r.created_at${text} DESC, r.id${text} DESC LIMIT ${filter.limit}`
  })
  /** The id of the row of `table` with this id, if there is one. */
  const findId = (table: "runs" | "sweeps", action: string) =>
    findOne({
      table,
      action,
      Request: Schema.String,
      Result: Id,
      execute: (id) => sql`SELECT id FROM ${sql(table)} WHERE id = ${id}`
    })
  const findRun = findId("runs", "reading a run")
  const findSweep = findId("sweeps", "reading a sweep")
  const insert = findOne({
    table: "runs",
    action: "creating a run",
    Request: NewRun,
    Result: Id,
    execute: (row) => sql`INSERT INTO runs ${sql.insert(row)} ON CONFLICT (id) DO NOTHING RETURNING id`
  })
  const updateStatus = findOne({
    table: "runs",
    action: "updating a run",
    Request: StatusChange,
    Result: Id,
    execute: (c) =>
      sql`UPDATE runs SET status = ${c.status}, updated_at = ${c.now}, message = ${c.message},
        started_at = ${c.status === "running" ? sql`coalesce(started_at, ${c.now})` : sql`started_at`},
        finished_at = ${c.finished === "stamp" ? sql`${c.now}` : c.finished === "clear" ? sql`NULL` : sql`finished_at`}
        WHERE id = ${c.runId} RETURNING id`
  })

  const startQueued = findOne({
    table: "runs",
    action: "starting a queued run",
    Request: Schema.Struct({ runId: Schema.String, now: Schema.String }),
    Result: Id,
    execute: (r) =>
      sql`UPDATE runs SET status = 'running', updated_at = ${r.now}, message = NULL,
        started_at = coalesce(started_at, ${r.now}), finished_at = NULL
        WHERE id = ${r.runId} AND status = 'created' RETURNING id`
  })

  /** `created` → `running`, atomically: false when the run is in any other state (a cancel is never overwritten). */
  const startQueuedRun = (runId: string): Effect.Effect<boolean, StoreError> =>
    Effect.map(Effect.flatMap(nowIso, (now) => startQueued({ runId, now })), Option.isSome)

  const getRun = (runId: string): Effect.Effect<Run, RunNotFound | StoreError> =>
    Effect.flatMap(
      selectRuns({ runId, limit: 1 }),
      (rows) => rows[0] === undefined ? Effect.fail(new RunNotFound({ runId })) : Effect.succeed(toRun(rows[0]))
    )

  const runExists = (runId: string): Effect.Effect<void, RunNotFound | StoreError> =>
    Effect.flatMap(
      findRun(runId),
      Option.match({
        onNone: () => Effect.fail(new RunNotFound({ runId })),
        onSome: () => Effect.void
      })
    )

  const listRuns = (options: ListRunsOptions = {}) =>
    Effect.map(
      selectRuns({
        status: options.status,
        sweepId: options.sweepId,
        datasetHash: options.datasetHash,
        before: options.before,
        limit: options.limit ?? 100
      }),
      (rows) => rows.map(toRun)
    )

  const insertRun = (id: string, input: CreateRunInput, now: string) =>
    Effect.gen(function*() {
      const sweepId = input.manifest.sweep?.sweepId ?? null
      if (sweepId !== null && Option.isNone(yield* findSweep(sweepId))) return yield* new SweepNotFound({ sweepId })
      const row = {
        id,
        sweep_id: sweepId,
        status: "created" as const,
        manifest: input.manifest,
        execution: input.execution ?? "local"
      }
      return Option.isSome(yield* insert({ ...row, created_at: now, updated_at: now }))
    })

  const createRun = (input: CreateRunInput): Effect.Effect<Run, SweepNotFound | StoreError> =>
    Effect.gen(function*() {
      const now = yield* nowIso
      for (let attempt = 0; attempt < 8; attempt++) {
        const id = input.id ?? (yield* makeRunId)
        if (yield* insertRun(id, input, now)) return yield* Effect.orDie(getRun(id))
        if (input.id !== undefined) return yield* new StoreError({ message: `a run with id ${id} already exists` })
      }
      return yield* new StoreError({ message: "could not allocate a unique run id" })
    })

  const setRunStatus = (runId: string, status: RunStatus, message?: string) =>
    Effect.gen(function*() {
      const final = status === "completed" || status === "failed" || status === "interrupted"
      const finished = final ? "stamp" as const : status === "running" ? "clear" as const : "keep" as const
      const updated = yield* updateStatus({ runId, status, message: message ?? null, now: yield* nowIso, finished })
      if (Option.isNone(updated)) return yield* new RunNotFound({ runId })
      return yield* getRun(runId)
    })

  const bumpGeneration = findOne({
    table: "runs",
    action: "enqueueing a run again",
    Request: Schema.Struct({ runId: Schema.String, now: Schema.String }),
    Result: Schema.Struct({ queue_generation: DbInt }),
    execute: (r) =>
      sql`UPDATE runs SET queue_generation = queue_generation + 1, execution = 'queue', updated_at = ${r.now}
        WHERE id = ${r.runId} RETURNING queue_generation`
  })

  /** Starts a new generation of a run's queue jobs (a resume of a queue run); returns it. */
  const nextQueueGeneration = (runId: string): Effect.Effect<number, RunNotFound | StoreError> =>
    Effect.gen(function*() {
      const updated = yield* bumpGeneration({ runId, now: yield* nowIso })
      if (Option.isNone(updated)) return yield* new RunNotFound({ runId })
      return updated.value.queue_generation
    })

  return { getRun, runExists, listRuns, createRun, setRunStatus, startQueuedRun, nextQueueGeneration }
}
