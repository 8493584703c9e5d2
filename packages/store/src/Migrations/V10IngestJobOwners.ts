import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { userVersion } from "./Dialect.js"

/**
 * Which process runs a background upload (`ingest_jobs.owner`, `host:pid:id`) and when it last reported progress
 * (`heartbeat_at`, epoch ms). With several replicas on one store, a replica that starts marks as interrupted only
 * the uploads whose process is gone — not the ones another live replica is still indexing.
 */
export const v10 = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`ALTER TABLE ingest_jobs ADD COLUMN owner TEXT`
    yield* sql`ALTER TABLE ingest_jobs ADD COLUMN heartbeat_at BIGINT`
    yield* userVersion(sql, 10)
  })
