import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { userVersion } from "./Dialect.js"

/** Runs started through the HTTP app: which tenant owns them and whether the server resumes them on startup. */
export const v2 = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`CREATE TABLE run_owners (
      run_id TEXT PRIMARY KEY NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      tenant_id TEXT NOT NULL,
      auto_resume ${
      sql.onDialectOrElse({
        pg: () => sql.literal("BOOLEAN NOT NULL DEFAULT TRUE"),
        orElse: () => sql.literal("INTEGER NOT NULL DEFAULT 1")
      })
    },
      created_at TEXT NOT NULL)`
    yield* sql`CREATE INDEX run_owners_tenant ON run_owners(tenant_id, created_at)`
    yield* userVersion(sql, 2)
  })
