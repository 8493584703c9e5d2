import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { userVersion } from "./Dialect.js"

/** The shared content-addressed cache (`SharedCache`) was never used; its table goes. */
export const v6 = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`DROP TABLE caches`
    yield* userVersion(sql, 6)
  })
