import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { userVersion } from "./Dialect.js"

/**
 * Per-tenant limits that hold across server replicas sharing one store (`TenantQuotas`):
 * - `request_windows`: requests per tenant per one-minute window (the rate limit);
 * - `tenant_admissions`: one row per tenant, written first in a run admission's transaction, so that admissions of one
 *   tenant are serialised on SQLite (the first write takes the database's write lock); Postgres uses an advisory
 *   transaction lock instead.
 */
export const v9 = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`CREATE TABLE request_windows (
      tenant_id TEXT NOT NULL,
      window_start BIGINT NOT NULL,
      count INTEGER NOT NULL,
      PRIMARY KEY (tenant_id, window_start))`
    yield* sql`CREATE TABLE tenant_admissions (
      tenant_id TEXT PRIMARY KEY NOT NULL,
      admitted_at BIGINT NOT NULL)`
    yield* userVersion(sql, 9)
  })
