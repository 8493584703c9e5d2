import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { ApiKeyRecord, InvalidTenant, KeyNotFound, TenantId, TenantQuota, TenantRecord } from "./Domain/ApiKey.js"
import type { StoreError } from "./Domain/Errors.js"
import { decodeRowWith, fromJson, nowIso, optionalDate, sqlFailure, toJson } from "./internal/sql.js"

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
  created_at: Schema.String,
  revoked_at: Schema.NullOr(Schema.String)
})
const TenantRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  quota: Schema.NullOr(Schema.String),
  created_at: Schema.String
})
const decodeKeyRow = decodeRowWith(KeyRow, "API key row")
const decodeTenantRow = decodeRowWith(TenantRow, "tenant row")
const decodeQuota = fromJson(TenantQuota, "tenant quota")
const encodeQuota = toJson(TenantQuota)
const validTenant = Schema.is(TenantId)

const keyPattern = /^dn_([a-z0-9]{10})_([A-Za-z0-9_-]{43})$/u
const idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

const toKey = (row: unknown) =>
  Effect.map(decodeKeyRow(row), (r) =>
    new ApiKeyRecord({
      id: r.id,
      tenantId: r.tenant_id,
      label: r.label ?? undefined,
      createdAt: new Date(r.created_at),
      revokedAt: optionalDate(r.revoked_at)
    }))

const toTenant = (row: unknown) =>
  Effect.gen(function*() {
    const r = yield* decodeTenantRow(row)
    return new TenantRecord({
      id: r.id,
      name: r.name,
      quota: r.quota === null ? {} : yield* decodeQuota(r.quota),
      createdAt: new Date(r.created_at)
    })
  })

/**
 * API keys of the HTTP app (`tenants` and `api_keys` tables). A key is `dn_<id>_<secret>` with a 256-bit random
 * secret; only HMAC-SHA256(pepper, secret) is stored, and verification compares hashes in constant time. The pepper
 * is a server-side secret kept outside the store, so a copied store file alone cannot check guesses.
 */
export class ApiKeys extends Context.Tag("@deepnote/store/ApiKeys")<ApiKeys, ApiKeysService>() {
  static readonly make = (pepper: Redacted.Redacted<string>) =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const hashOf = (secret: string) => createHmac("sha256", Redacted.value(pepper)).update(secret).digest("hex")

      const getTenant = Effect.fn("ApiKeys.getTenant")(function*(tenantId: string) {
        const rows = yield* sql`SELECT * FROM tenants WHERE id = ${tenantId}`.pipe(sqlFailure("reading a tenant"))
        return rows[0] === undefined ? Option.none() : Option.some(yield* toTenant(rows[0]))
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
          const quota = options.quota === undefined ? null : yield* encodeQuota(options.quota)
          yield* sql`INSERT INTO tenants ${
            sql.insert({ id: tenantId, name: options.name ?? tenantId, quota, created_at: yield* nowIso })
          } ON CONFLICT(id) DO NOTHING`.pipe(sqlFailure("creating a tenant"))
          if (quota !== null) {
            yield* sql`UPDATE tenants SET quota = ${quota} WHERE id = ${tenantId}`.pipe(sqlFailure("updating a tenant"))
          }
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
        const createdAt = yield* nowIso
        yield* sql`INSERT INTO api_keys ${
          sql.insert({
            id,
            tenant_id: input.tenantId,
            hash: hashOf(secret),
            label: input.label ?? null,
            created_at: createdAt
          })
        }`.pipe(sqlFailure("creating an API key"))
        return {
          key: Redacted.make(`dn_${id}_${secret}`),
          record: new ApiKeyRecord({ id, tenantId: input.tenantId, label: input.label, createdAt: new Date(createdAt) })
        }
      })

      const list: ApiKeysService["list"] = Effect.fn("ApiKeys.list")(function*(options = {}) {
        const rows = options.tenantId === undefined
          ? yield* sql`SELECT * FROM api_keys ORDER BY created_at DESC, id`.pipe(sqlFailure("listing API keys"))
          : yield* sql`SELECT * FROM api_keys WHERE tenant_id = ${options.tenantId} ORDER BY created_at DESC, id`.pipe(
            sqlFailure("listing API keys")
          )
        return yield* Effect.forEach(rows, toKey)
      })

      const revoke = Effect.fn("ApiKeys.revoke")(function*(keyId: string) {
        yield* sql`UPDATE api_keys SET revoked_at = ${yield* nowIso} WHERE id = ${keyId} AND revoked_at IS NULL`.pipe(
          sqlFailure("revoking an API key")
        )
        const rows = yield* sql`SELECT * FROM api_keys WHERE id = ${keyId}`.pipe(sqlFailure("reading an API key"))
        if (rows[0] === undefined) return yield* new KeyNotFound({ keyId })
        return yield* toKey(rows[0])
      })

      const verify = Effect.fn("ApiKeys.verify")(function*(key: Redacted.Redacted<string>) {
        const match = keyPattern.exec(Redacted.value(key))
        const candidate = Buffer.from(hashOf(match?.[2] ?? ""), "hex")
        const rows = match === null
          ? []
          : yield* sql`SELECT * FROM api_keys WHERE id = ${match[1]} AND revoked_at IS NULL`.pipe(
            sqlFailure("reading an API key")
          )
        const row = rows[0] === undefined ? undefined : yield* decodeKeyRow(rows[0])
        const stored = Buffer.from(row?.hash ?? "0".repeat(64), "hex")
        const equal = stored.length === candidate.length && timingSafeEqual(stored, candidate)
        if (!equal || row === undefined) return Option.none()
        const tenant = yield* getTenant(row.tenant_id)
        if (Option.isNone(tenant)) return Option.none()
        return Option.some({ key: yield* toKey(rows[0]), tenant: tenant.value })
      })

      return ApiKeys.of({ ensureTenant, getTenant, create, list, revoke, verify })
    })

  static readonly layer = (pepper: Redacted.Redacted<string>): Layer.Layer<ApiKeys, never, SqlClient.SqlClient> =>
    Layer.effect(ApiKeys, ApiKeys.make(pepper))
}
