import { Schema } from "effect"

/** Per-tenant limits of the HTTP app; absent fields use the server's defaults. */
export const TenantQuota = Schema.Struct({
  requestsPerMinute: Schema.optional(Schema.Int.pipe(Schema.positive())),
  maxConcurrentRuns: Schema.optional(Schema.Int.pipe(Schema.positive()))
})
export type TenantQuota = typeof TenantQuota.Type

/** A tenant id: lower-case letters, digits and single dashes (it prefixes collection names). */
export const TenantId = Schema.String.pipe(
  Schema.pattern(/^[a-z0-9](?:[a-z0-9]|-(?!-)){0,31}$/u, {
    message: () => "a tenant id is 1-32 lower-case letters, digits or single dashes, starting with a letter or digit"
  })
)

/** A tenant of the HTTP app: it sees only its own collections and runs. */
export class TenantRecord extends Schema.Class<TenantRecord>("TenantRecord")({
  id: Schema.String,
  name: Schema.String,
  quota: TenantQuota,
  createdAt: Schema.Date
}) {}

/** An API key as stored: never the key itself, only its keyed hash. */
export class ApiKeyRecord extends Schema.Class<ApiKeyRecord>("ApiKeyRecord")({
  id: Schema.String,
  tenantId: Schema.String,
  label: Schema.optional(Schema.String),
  createdAt: Schema.Date,
  revokedAt: Schema.optional(Schema.Date)
}) {}

/** No API key has this id. */
export class KeyNotFound extends Schema.TaggedError<KeyNotFound>()("KeyNotFound", {
  keyId: Schema.String
}) {
  override get message(): string {
    return `API key ${this.keyId} not found`
  }
}

/** A tenant id that cannot be used (see `TenantId`). */
export class InvalidTenant extends Schema.TaggedError<InvalidTenant>()("InvalidTenant", {
  tenantId: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `invalid tenant "${this.tenantId}": ${this.reason}`
  }
}
