import type { SqlClient } from "@effect/sql"
import { Schema } from "effect"
import { ApiKeyRecord, TenantQuota, TenantRecord } from "../Domain/ApiKey.js"
import { makeQueries } from "./query.js"
import { byteOrder, orUndefined } from "./sql.js"

const KeyRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  hash: Schema.String,
  label: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  revoked_at: Schema.NullOr(Schema.Date)
})
const TenantRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  quota: Schema.NullOr(Schema.parseJson(TenantQuota)),
  created_at: Schema.Date
})

export const toKey = (r: typeof KeyRow.Type) =>
  new ApiKeyRecord({
    id: r.id,
    tenantId: r.tenant_id,
    label: orUndefined(r.label),
    createdAt: r.created_at,
    revokedAt: orUndefined(r.revoked_at)
  })

export const toTenant = (r: typeof TenantRow.Type) =>
  new TenantRecord({ id: r.id, name: r.name, quota: r.quota ?? {}, createdAt: r.created_at })

/** The `tenants` and `api_keys` queries. */
export const makeKeyQueries = (sql: SqlClient.SqlClient) => {
  const { execute, findAll, findOne } = makeQueries(sql)
  const text = byteOrder(sql)
  return {
    tenant: findOne({
      table: "tenants",
      action: "reading a tenant",
      Request: Schema.String,
      Result: TenantRow,
      execute: (id) => sql`SELECT id, name, quota, created_at FROM tenants WHERE id = ${id}`
    }),
    insertTenant: execute({
      table: "tenants",
      action: "creating a tenant",
      Request: TenantRow,
      execute: (row) => sql`INSERT INTO tenants ${sql.insert(row)} ON CONFLICT (id) DO NOTHING`
    }),
    setQuota: execute({
      table: "tenants",
      action: "updating a tenant",
      Request: Schema.Struct({ id: Schema.String, quota: Schema.parseJson(TenantQuota) }),
      execute: (r) => sql`UPDATE tenants SET quota = ${r.quota} WHERE id = ${r.id}`
    }),
    insertKey: execute({
      table: "api_keys",
      action: "creating an API key",
      Request: KeyRow,
      execute: (row) => sql`INSERT INTO api_keys ${sql.insert(row)}`
    }),
    keys: findAll({
      table: "api_keys",
      action: "listing API keys",
      Request: Schema.Struct({ tenantId: Schema.optional(Schema.String) }),
      Result: KeyRow,
      execute: (r) =>
        sql`SELECT * FROM api_keys${r.tenantId === undefined ? sql.literal("") : sql` WHERE tenant_id = ${r.tenantId}`}
          ORDER BY created_at${text} DESC, id${text}`
    }),
    key: findOne({
      table: "api_keys",
      action: "reading an API key",
      Request: Schema.Struct({ id: Schema.String, live: Schema.Boolean }),
      Result: KeyRow,
      execute: (r) =>
        sql`SELECT * FROM api_keys WHERE id = ${r.id}${r.live ? sql` AND revoked_at IS NULL` : sql.literal("")}`
    }),
    revoke: execute({
      table: "api_keys",
      action: "revoking an API key",
      Request: Schema.Struct({ id: Schema.String, now: Schema.String }),
      execute: (r) => sql`UPDATE api_keys SET revoked_at = ${r.now} WHERE id = ${r.id} AND revoked_at IS NULL`
    })
  }
}
