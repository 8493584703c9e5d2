import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { userVersion } from "./Dialect.js"

/**
 * Token counts as columns, so journal totals are plain sums on both dialects (they were `json_extract` over the usage
 * JSON, which Postgres spells differently). Existing rows are filled from their usage JSON, in each dialect's syntax.
 */
export const v5 = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`ALTER TABLE journal ADD COLUMN prompt_tokens INTEGER`
    yield* sql`ALTER TABLE journal ADD COLUMN completion_tokens INTEGER`
    yield* sql.onDialectOrElse({
      pg: () =>
        sql`UPDATE journal SET prompt_tokens = CAST(CAST(usage AS JSON) ->> 'promptTokens' AS INTEGER),
          completion_tokens = CAST(CAST(usage AS JSON) ->> 'completionTokens' AS INTEGER) WHERE usage IS NOT NULL`,
      orElse: () =>
        sql`UPDATE journal SET prompt_tokens = json_extract(usage, '$.promptTokens'),
          completion_tokens = json_extract(usage, '$.completionTokens') WHERE usage IS NOT NULL`
    })
    yield* userVersion(sql, 5)
  })
