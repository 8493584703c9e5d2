import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { ApiKeyRecord, InvalidTenant, KeyNotFound, TenantId, TenantQuota, TenantRecord } from "./Domain/ApiKey.js"
import type { StoreError } from "./Domain/Errors.js"
import { makeKeyQueries, toKey, toTenant } from "./internal/apiKeyRows.js"
import { now, nowIso } from "./internal/sql.js"

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

const validTenant = Schema.is(TenantId)
const keyPattern = /^dn_([a-z0-9]{10})_([A-Za-z0-9_-]{43})$/u
const idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

/**
 * API keys of the HTTP app (`tenants` and `api_keys` tables). A key is `dn_<id>_<secret>` with a 256-bit random
 * secret; only HMAC-SHA256(pepper, secret) is stored, and verification compares hashes in constant time. The pepper
 * is a server-side secret kept outside the store, so a copied store file alone cannot check guesses.
 */
export class ApiKeys extends Context.Tag("@deepnote-rag/store/ApiKeys")<ApiKeys, ApiKeysService>() {
  static readonly make = (
    pepper: Redacted.Redacted<string>
  ): Effect.Effect<ApiKeysService, never, SqlClient.SqlClient> =>
    Effect.gen(function*() {
      const q = makeKeyQueries(yield* SqlClient.SqlClient)
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
