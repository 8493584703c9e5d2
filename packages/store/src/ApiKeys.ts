import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { ApiKeyRecord, InvalidTenant, KeyNotFound, TenantId, TenantQuota, TenantRecord } from "./Domain/ApiKey.js"
import type { StoreError } from "./Domain/Errors.js"
import { execute, findAll, findOne } from "./internal/query.js"
import { byteOrder, now, nowIso, orUndefined } from "./internal/sql.js"

/** A key that was just created: `key` is shown once and never stored. */
export interface CreatedKey {
  readonly key: Redacted.Redacted<string>
  readonly record: ApiKeyRecord
}

/** Whom a valid key belongs to. */
export interface Principal {
  readonly key: ApiKeyRecord
  readonly tenant: TenantRecord
}

export interface ApiKeysService {
  /** Creates the tenant when missing; replaces its quota when one is given. */
  readonly ensureTenant: (
    tenantId: string,
    options?: { readonly name?: string; readonly quota?: TenantQuota }
  ) => Effect.Effect<TenantRecord, InvalidTenant | StoreError>
  readonly getTenant: (tenantId: string) => Effect.Effect<Option.Option<TenantRecord>, StoreError>
  /** A new key for the tenant (created when missing): `dn_<id>_<secret>`. */
  readonly create: (input: {
    readonly tenantId: string
    readonly label?: string | undefined
  }) => Effect.Effect<CreatedKey, InvalidTenant | StoreError>
  /** Every key (revoked ones too), newest first. */
  readonly list: (options?: { readonly tenantId?: string }) => Effect.Effect<ReadonlyArray<ApiKeyRecord>, StoreError>
  readonly revoke: (keyId: string) => Effect.Effect<ApiKeyRecord, KeyNotFound | StoreError>
  /** The principal of a live key; `None` for unknown, malformed or revoked keys. */
  readonly verify: (key: Redacted.Redacted<string>) => Effect.Effect<Option.Option<Principal>, StoreError>
}

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
const validTenant = Schema.is(TenantId)

const keyPattern = /^dn_([a-z0-9]{10})_([A-Za-z0-9_-]{43})$/u
const idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

const toKey = (r: typeof KeyRow.Type) =>
  new ApiKeyRecord({
    id: r.id,
    tenantId: r.tenant_id,
    label: orUndefined(r.label),
    createdAt: r.created_at,
    revokedAt: orUndefined(r.revoked_at)
  })

const toTenant = (r: typeof TenantRow.Type) =>
  new TenantRecord({ id: r.id, name: r.name, quota: r.quota ?? {}, createdAt: r.created_at })

/** The `tenants` and `api_keys` queries. */
const makeQueries = (sql: SqlClient.SqlClient) => {
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

/**
 * API keys of the HTTP app (`tenants` and `api_keys` tables). A key is `dn_<id>_<secret>` with a 256-bit random
 * secret; only HMAC-SHA256(pepper, secret) is stored, and verification compares hashes in constant time. The pepper
 * is a server-side secret kept outside the store, so a copied store file alone cannot check guesses.
 */
export class ApiKeys extends Context.Tag("@deepnote/store/ApiKeys")<ApiKeys, ApiKeysService>() {
  static readonly make = (
    pepper: Redacted.Redacted<string>
  ): Effect.Effect<ApiKeysService, never, SqlClient.SqlClient> =>
    Effect.gen(function*() {
      const q = makeQueries(yield* SqlClient.SqlClient)
      const hashOf = (secret: string) => createHmac("sha256", Redacted.value(pepper)).update(secret).digest("hex")

      const getTenant = Effect.fn("ApiKeys.getTenant")(function*(tenantId: string) {
        yield* Effect.annotateCurrentSpan({ "deepnote.tenant.id": tenantId })
        return Option.map(yield* q.tenant(tenantId), toTenant)
      })

      const ensureTenant: ApiKeysService["ensureTenant"] = Effect.fn("ApiKeys.ensureTenant")(
        function*(tenantId, options = {}) {
          yield* Effect.annotateCurrentSpan({ "deepnote.tenant.id": tenantId })
          if (!validTenant(tenantId)) {
            return yield* new InvalidTenant({
              tenantId,
              reason: "use 1-32 lower-case letters, digits or single dashes"
            })
          }
          const quota = options.quota ?? null
          yield* q.insertTenant({ id: tenantId, name: options.name ?? tenantId, quota, created_at: yield* now })
          if (quota !== null) yield* q.setQuota({ id: tenantId, quota })
          const tenant = yield* getTenant(tenantId)
          if (Option.isNone(tenant)) return yield* Effect.dieMessage(`tenant ${tenantId} vanished after its insert`)
          return tenant.value
        }
      )

      const create: ApiKeysService["create"] = Effect.fn("ApiKeys.create")(function*(input) {
        yield* ensureTenant(input.tenantId)
        const bytes = randomBytes(42)
        const id = Array.from(bytes.subarray(0, 10), (b) => idAlphabet[b % idAlphabet.length]).join("")
        const secret = bytes.subarray(10).toString("base64url")
        const createdAt = yield* now
        const row = { id, tenant_id: input.tenantId, hash: hashOf(secret), label: input.label ?? null }
        yield* q.insertKey({ ...row, created_at: createdAt, revoked_at: null })
        return {
          key: Redacted.make(`dn_${id}_${secret}`),
          record: new ApiKeyRecord({ id, tenantId: input.tenantId, label: input.label, createdAt })
        }
      })

      const list: ApiKeysService["list"] = Effect.fn("ApiKeys.list")(function*(options = {}) {
        return (yield* q.keys({ tenantId: options.tenantId })).map(toKey)
      })

      const revoke = Effect.fn("ApiKeys.revoke")(function*(keyId: string) {
        yield* q.revoke({ id: keyId, now: yield* nowIso })
        const row = yield* q.key({ id: keyId, live: false })
        if (Option.isNone(row)) return yield* new KeyNotFound({ keyId })
        return toKey(row.value)
      })

      const verify = Effect.fn("ApiKeys.verify")(function*(key: Redacted.Redacted<string>) {
        const match = keyPattern.exec(Redacted.value(key))
        const candidate = Buffer.from(hashOf(match?.[2] ?? ""), "hex")
        const row = match === null ? Option.none() : yield* q.key({ id: match[1]!, live: true })
        const stored = Buffer.from(Option.match(row, { onNone: () => "0".repeat(64), onSome: (r) => r.hash }), "hex")
        const equal = stored.length === candidate.length && timingSafeEqual(stored, candidate)
        if (!equal || Option.isNone(row)) return Option.none()
        const tenant = yield* getTenant(row.value.tenant_id)
        if (Option.isNone(tenant)) return Option.none()
        return Option.some({ key: toKey(row.value), tenant: tenant.value })
      })

      return ApiKeys.of({ ensureTenant, getTenant, create, list, revoke, verify })
    })

  static readonly layer = (pepper: Redacted.Redacted<string>): Layer.Layer<ApiKeys, never, SqlClient.SqlClient> =>
    Layer.effect(ApiKeys, ApiKeys.make(pepper))
}
