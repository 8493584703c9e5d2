import { SqlClient } from "@effect/sql"
import { Clock, Context, Duration, Effect, Layer, Option, Schema } from "effect"
import { RunNotFound, type StoreError } from "./Domain/Errors.js"
import { type Lease, LeaseAcquisition, LeaseLost, type LeaseOwner } from "./Domain/Lease.js"
import {
  CurrentRow,
  leaseColumns,
  leaseOf,
  LeaseRow,
  Lookup,
  ownerOf,
  Release,
  Renewal,
  Take
} from "./internal/leaseRows.js"
import { makeQueries } from "./internal/query.js"

/** One owner per run: a lease that its holder renews while it runs the run, and that others take over once expired. */
export interface RunLeasesService {
  /**
   * Takes the run's lease for `ttl` when it is free, expired or already the caller's (`Acquired`); otherwise reports
   * the live holder (`HeldBy`). Of concurrent acquirers exactly one wins.
   */
  readonly acquire: (
    runId: string,
    owner: LeaseOwner,
    ttl: Duration.DurationInput
  ) => Effect.Effect<LeaseAcquisition, RunNotFound | StoreError>
  /** Extends the caller's lease to `ttl` from now; `LeaseLost` when it was released or another owner took it. */
  readonly renew: (
    runId: string,
    ownerId: string,
    ttl: Duration.DurationInput
  ) => Effect.Effect<Lease, LeaseLost | RunNotFound | StoreError>
  /** Gives the lease up; does nothing when the caller does not hold it. */
  readonly release: (runId: string, ownerId: string) => Effect.Effect<void, StoreError>
  /** The live lease, if any (`None` when never taken, released or expired). */
  readonly get: (runId: string) => Effect.Effect<Option.Option<Lease>, RunNotFound | StoreError>
}

/** The lease columns of `runs`. Each operation is one atomic statement. */
export class RunLeases extends Context.Tag("@deepnote-rag/store/RunLeases")<RunLeases, RunLeasesService>() {
  static readonly make: Effect.Effect<RunLeasesService, never, SqlClient.SqlClient> = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { findOne } = makeQueries(sql)
    // The lease clock, in epoch milliseconds. Postgres: the database's clock (`now()`), because the machines sharing a
    // store disagree about the time and the database is the one clock they all see. SQLite: the Clock service — one
    // machine, one clock, and tests drive expiry with TestClock instead of waiting.
    const now = (nowMs: number) =>
      sql.onDialectOrElse({
        pg: () => sql.literal("CAST(EXTRACT(EPOCH FROM now()) * 1000 AS BIGINT)"),
        orElse: () => sql`${nowMs}`
      })
    const columns = sql.literal(leaseColumns)

    const take = findOne({
      table: "runs",
      action: "acquiring a run lease",
      Request: Take,
      Result: LeaseRow,
      execute: (t) =>
        sql`UPDATE runs SET lease_owner_id = ${t.ownerId}, lease_owner_host = ${t.host}, lease_owner_pid = ${t.pid},
          lease_owner_label = ${t.label}, lease_heartbeat_at = ${now(t.nowMs)},
          lease_expires_at = ${now(t.nowMs)} + ${t.ttlMs}
          WHERE id = ${t.runId}
            AND (lease_owner_id IS NULL OR lease_owner_id = ${t.ownerId} OR lease_expires_at < ${now(t.nowMs)})
          RETURNING ${columns}`
    })
    const extend = findOne({
      table: "runs",
      action: "renewing a run lease",
      Request: Renewal,
      Result: LeaseRow,
      execute: (r) =>
        sql`UPDATE runs SET lease_heartbeat_at = ${now(r.nowMs)}, lease_expires_at = ${now(r.nowMs)} + ${r.ttlMs}
          WHERE id = ${r.runId} AND lease_owner_id = ${r.ownerId} RETURNING ${columns}`
    })
    const clear = findOne({
      table: "runs",
      action: "releasing a run lease",
      Request: Release,
      Result: Schema.Struct({ id: Schema.String }),
      execute: (r) =>
        sql`UPDATE runs SET lease_owner_id = NULL, lease_owner_host = NULL, lease_owner_pid = NULL,
          lease_owner_label = NULL, lease_heartbeat_at = NULL, lease_expires_at = NULL
          WHERE id = ${r.runId} AND lease_owner_id = ${r.ownerId} RETURNING id`
    })
    const current = findOne({
      table: "runs",
      action: "reading a run lease",
      Request: Lookup,
      Result: CurrentRow,
      execute: (r) =>
        sql`SELECT ${columns}, CASE WHEN lease_owner_id IS NOT NULL AND lease_expires_at >= ${now(r.nowMs)}
          THEN 1 ELSE 0 END AS live FROM runs WHERE id = ${r.runId}`
    })

    /** The run's live lease; `RunNotFound` for an unknown run. */
    const live = (runId: string) =>
      Effect.gen(function*() {
        const row = yield* current({ runId, nowMs: yield* Clock.currentTimeMillis })
        if (Option.isNone(row)) return yield* new RunNotFound({ runId })
        const { lease_expires_at: expiresAt, lease_heartbeat_at: heartbeatAt, live } = row.value
        const { lease_owner_host: host, lease_owner_id: id, lease_owner_pid: pid } = row.value
        if (live === 0 || id === null || host === null || pid === null || heartbeatAt === null || expiresAt === null) {
          return Option.none()
        }
        return Option.some<Lease>({
          runId,
          owner: ownerOf(id, host, pid, row.value.lease_owner_label),
          heartbeatAt,
          expiresAt
        })
      })

    const acquire = Effect.fn("RunLeases.acquire")(function*(
      runId: string,
      owner: LeaseOwner,
      ttl: Duration.DurationInput
    ) {
      yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId, "deepnote.lease.owner": owner.id })
      const ttlMs = Math.round(Duration.toMillis(ttl))
      // the holder may release or expire between the update and the read: then try again
      for (let attempt = 0; attempt < 5; attempt++) {
        const taken = yield* take({
          runId,
          ownerId: owner.id,
          host: owner.host,
          pid: owner.pid,
          label: owner.label ?? null,
          ttlMs,
          nowMs: yield* Clock.currentTimeMillis
        })
        if (Option.isSome(taken)) return LeaseAcquisition.Acquired({ lease: leaseOf(runId, taken.value) })
        const holder = yield* live(runId)
        if (Option.isSome(holder)) {
          const { expiresAt, heartbeatAt, owner } = holder.value
          return LeaseAcquisition.HeldBy({ owner, heartbeatAt, expiresAt })
        }
      }
      return yield* Effect.dieMessage(`the lease of run ${runId} changed hands five times during one acquire`)
    })

    const renew = Effect.fn("RunLeases.renew")(function*(runId: string, ownerId: string, ttl: Duration.DurationInput) {
      yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId, "deepnote.lease.owner": ownerId })
      const ttlMs = Math.round(Duration.toMillis(ttl))
      const renewed = yield* extend({ runId, ownerId, ttlMs, nowMs: yield* Clock.currentTimeMillis })
      if (Option.isSome(renewed)) return leaseOf(runId, renewed.value)
      const holder = yield* live(runId)
      return yield* new LeaseLost({
        runId,
        ownerId,
        heldBy: Option.getOrUndefined(Option.map(holder, (lease) => lease.owner.id))
      })
    })

    const release = Effect.fn("RunLeases.release")(function*(runId: string, ownerId: string) {
      yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId, "deepnote.lease.owner": ownerId })
      yield* clear({ runId, ownerId })
    })

    const get = Effect.fn("RunLeases.get")(function*(runId: string) {
      yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId })
      return yield* live(runId)
    })

    return RunLeases.of({ acquire, renew, release, get })
  })

  static readonly layer: Layer.Layer<RunLeases, never, SqlClient.SqlClient> = Layer.effect(RunLeases, RunLeases.make)
}
