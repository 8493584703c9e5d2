import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { userVersion } from "./Dialect.js"

/**
 * The run lease (`RunLeases`): which process owns a run, until when. Times are epoch milliseconds, so one comparison
 * works on both dialects.
 */
export const v7 = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`ALTER TABLE runs ADD COLUMN lease_owner_id TEXT`
    yield* sql`ALTER TABLE runs ADD COLUMN lease_owner_host TEXT`
    yield* sql`ALTER TABLE runs ADD COLUMN lease_owner_pid INTEGER`
    yield* sql`ALTER TABLE runs ADD COLUMN lease_owner_label TEXT`
    yield* sql`ALTER TABLE runs ADD COLUMN lease_heartbeat_at BIGINT`
    yield* sql`ALTER TABLE runs ADD COLUMN lease_expires_at BIGINT`
    yield* userVersion(sql, 7)
  })
