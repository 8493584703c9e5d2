import { RateLimited, type Tenant } from "@deepnote/api"
import { Clock, Context, Effect, Layer } from "effect"

interface Bucket {
  tokens: number
  updatedMs: number
}

/**
 * Requests per minute per tenant: a token bucket per tenant (capacity = the per-minute limit, refilled continuously).
 * An empty bucket answers 429 `rate_limited` with the seconds until the next token.
 */
export class TenantRateLimiter extends Context.Tag("@deepnote/server/TenantRateLimiter")<TenantRateLimiter, {
  readonly take: (tenant: Tenant) => Effect.Effect<void, RateLimited>
}>() {
  static readonly layer = Layer.sync(TenantRateLimiter, () => {
    const buckets = new Map<string, Bucket>()
    return {
      take: (tenant) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const perMs = tenant.requestsPerMinute / 60_000
          const bucket = buckets.get(tenant.id) ?? { tokens: tenant.requestsPerMinute, updatedMs: now }
          bucket.tokens = Math.min(tenant.requestsPerMinute, bucket.tokens + (now - bucket.updatedMs) * perMs)
          bucket.updatedMs = now
          buckets.set(tenant.id, bucket)
          if (bucket.tokens >= 1) {
            bucket.tokens -= 1
            return Effect.void
          }
          const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000))
          return Effect.fail(
            RateLimited.of(`tenant ${tenant.id} exceeded ${tenant.requestsPerMinute} requests per minute`, retryAfter)
          )
        })
    }
  })
}
