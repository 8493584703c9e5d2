import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { userVersion } from "./Dialect.js"

/**
 * Runs by dataset (`GET /v1/runs?dataset=HASH`: `RunStore.listRuns` and `RunOwners.runsOf` with `datasetHash`): an
 * index on the expression those filters compare (`jsonTextField(sql, "r.manifest", ["dataset", "hash"])` in
 * `internal/sql.ts`), so the filter looks the runs up instead of reading every run's manifest. The expression is
 * written out here, as a migration must be; the dialect suite (`test/suites/TenantsSuite.ts`) reads each dialect's
 * query plan, so a query whose expression drifts from it fails there. Migration 15 replaces this index by one on the
 * expression and the listing order (`runs_dataset_newest`).
 */
export const v13 = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql.onDialectOrElse({
      pg: () => sql`CREATE INDEX runs_dataset ON runs ((CAST(manifest AS JSON) #>> '{dataset,hash}'))`,
      orElse: () => sql`CREATE INDEX runs_dataset ON runs (json_extract(manifest, '$.dataset.hash'))`
    })
    yield* userVersion(sql, 13)
  })
