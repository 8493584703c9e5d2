import { counted } from "@deepnote-rag/core"
import { SqlClient } from "@effect/sql"
import { Clock, Context, Data, Effect, Layer, Schema } from "effect"
import type { StoreError } from "./Domain/Errors.js"
import { makeQueries } from "./internal/query.js"
import { DbInt } from "./internal/sql.js"

/** The tenant already has as many runs executing or queued as its limit allows. */
export class TooManyRuns extends Data.TaggedError("TooManyRuns")<{
  readonly tenantId: string
  readonly active: number
  readonly limit: number
}> {
  override get message(): string {
    return `tenant ${this.tenantId} already has ${
      counted(this.active, "run")
    } executing or queued (limit ${this.limit})`
  }
}

/** How many requests a tenant made in the current one-minute window, and when the window ends. */
export interface RequestCount {
  readonly count: number
  readonly windowEndsAt: number
}

/**
 * Per-tenant limits kept in the store, so that they hold across every server replica sharing it: the number of runs a
 * tenant has executing or queued (checked and changed under a per-tenant lock), and its requests per minute.
 */
export interface TenantQuotasService {
  /** Runs of the tenant (started over HTTP) that are queued or running. */
  readonly activeRuns: (tenantId: string) => Effect.Effect<number, StoreError>
  /**
   * Runs `admit` under the tenant's admission lock, in one transaction, when the tenant has fewer than `limit` active
   * runs; fails with `TooManyRuns` otherwise. Two admissions of one tenant on any two replicas never both pass.
   */
  readonly admit: <A, E, R>(
    tenantId: string,
    limit: number,
    admit: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | TooManyRuns | StoreError, R>
  /** Counts one request of the tenant in the current minute (fixed windows of 60 s) and returns the count. */
  readonly countRequest: (tenantId: string) => Effect.Effect<RequestCount, StoreError>
}

const windowMs = 60_000

export class TenantQuotas extends Context.Tag("@deepnote-rag/store/TenantQuotas")<TenantQuotas, TenantQuotasService>() {
  static readonly make: Effect.Effect<TenantQuotasService, never, SqlClient.SqlClient> = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { execute, findOne, transaction } = makeQueries(sql)

    const countActive = findOne({
      table: "runs",
      action: "counting a tenant's active runs",
      Request: Schema.String,
      Result: Schema.Struct({ n: DbInt }),
      execute: (tenantId) =>
        sql`SELECT count(*) AS n FROM run_owners o JOIN runs r ON r.id = o.run_id
          WHERE o.tenant_id = ${tenantId} AND (r.status = 'running' OR (r.status = 'created' AND r.execution = 'queue'))`
    })
    const activeRuns = (tenantId: string) =>
      Effect.map(countActive(tenantId), (row) => row._tag === "Some" ? row.value.n : 0)

    const lockTenant = execute({
      table: "tenant_admissions",
      action: "taking a tenant's admission lock",
      Request: Schema.Struct({ tenantId: Schema.String, now: Schema.Number }),
      execute: (r) =>
        sql.onDialectOrElse({
          // an advisory lock held until the transaction ends; the key is the tenant id's hash
          pg: () => sql`SELECT pg_advisory_xact_lock(hashtext(${`deepnote-admission:${r.tenantId}`}))`,
          // the first write of the transaction takes SQLite's write lock: other admissions wait for this one
          orElse: () =>
            sql`INSERT INTO tenant_admissions (tenant_id, admitted_at) VALUES (${r.tenantId}, ${r.now})
              ON CONFLICT (tenant_id) DO UPDATE SET admitted_at = ${r.now}`
        })
    })

    const admit = <A, E, R>(tenantId: string, limit: number, effect: Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        yield* lockTenant({ tenantId, now: yield* Clock.currentTimeMillis })
        const active = yield* activeRuns(tenantId)
        if (active >= limit) return yield* new TooManyRuns({ tenantId, active, limit })
        return yield* effect
      }).pipe(transaction("admitting a run"))

    const hit = findOne({
      table: "request_windows",
      action: "counting a request",
      Request: Schema.Struct({ tenantId: Schema.String, windowStart: Schema.Number }),
      Result: Schema.Struct({ count: DbInt }),
      execute: (r) =>
        sql`INSERT INTO request_windows (tenant_id, window_start, count) VALUES (${r.tenantId}, ${r.windowStart}, 1)
          ON CONFLICT (tenant_id, window_start) DO UPDATE SET count = request_windows.count + 1 RETURNING count`
    })
    const prune = execute({
      table: "request_windows",
      action: "forgetting old request counts",
      Request: Schema.Struct({ tenantId: Schema.String, before: Schema.Number }),
      execute: (r) => sql`DELETE FROM request_windows WHERE tenant_id = ${r.tenantId} AND window_start < ${r.before}`
    })

    const countRequest = (tenantId: string) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const windowStart = now - (now % windowMs)
        const counted = yield* hit({ tenantId, windowStart })
        const count = counted._tag === "Some" ? counted.value.count : 1
        // the first request of a window forgets the tenant's older windows
        if (count === 1) yield* prune({ tenantId, before: windowStart })
        return { count, windowEndsAt: windowStart + windowMs }
      })

    return TenantQuotas.of({
      activeRuns: Effect.fn("TenantQuotas.activeRuns")(function*(tenantId: string) {
        return yield* activeRuns(tenantId)
      }),
      admit: (tenantId, limit, effect) =>
        admit(tenantId, limit, effect).pipe(
          Effect.withSpan("TenantQuotas.admit", { attributes: { "deepnote.tenant.id": tenantId } })
        ),
      countRequest: Effect.fn("TenantQuotas.countRequest")(function*(tenantId: string) {
        return yield* countRequest(tenantId)
      })
    })
  })

  static readonly layer: Layer.Layer<TenantQuotas, never, SqlClient.SqlClient> = Layer.effect(
    TenantQuotas,
    TenantQuotas.make
  )
}
