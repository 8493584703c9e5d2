import { RateLimited, type Tenant, Unavailable } from "@deepnote-rag/api"
import { TenantQuotas } from "@deepnote-rag/store"
import { Clock, Context, Effect, FiberRef, Layer } from "effect"
import { currentRateLimit } from "../Http/ResponseHeaders.js"
import { unavailableOrDie } from "../Http/StoreFailure.js"

export interface TenantRateLimiterService {
  /** Counts one request of the tenant; 429 `rate_limited` (with the seconds to wait) beyond its per-minute limit. */
  readonly take: (tenant: Tenant) => Effect.Effect<void, RateLimited | Unavailable>
}

/**
 * Requests per minute per tenant, counted in the store (one-minute windows), so that the limit holds over every
 * replica sharing it. A request beyond the limit answers 429 `rate_limited` with `Retry-After` = the seconds until
 * the window ends.
 */
export class TenantRateLimiter extends Context.Tag("@deepnote-rag/server/TenantRateLimiter")<
  TenantRateLimiter,
  TenantRateLimiterService
>() {
  static readonly make: Effect.Effect<TenantRateLimiterService, never, TenantQuotas> = Effect.gen(function*() {
    const quotas = yield* TenantQuotas
    return TenantRateLimiter.of({
      take: Effect.fn("TenantRateLimiter.take")(function*(tenant: Tenant) {
        const { count, windowEndsAt } = yield* quotas.countRequest(tenant.id).pipe(
          Effect.catchTag("StoreError", unavailableOrDie)
        )
        const now = yield* Clock.currentTimeMillis
        const resetSeconds = Math.max(1, Math.ceil((windowEndsAt - now) / 1000))
        const holder = yield* FiberRef.get(currentRateLimit)
        if (holder !== undefined) {
          holder.state = {
            limit: tenant.requestsPerMinute,
            remaining: Math.max(0, tenant.requestsPerMinute - count),
            resetSeconds
          }
        }
        if (count <= tenant.requestsPerMinute) return
        return yield* RateLimited.of(
          `tenant ${tenant.id} exceeded ${tenant.requestsPerMinute} requests per minute`,
          resetSeconds
        )
      })
    })
  })

  static readonly layer = Layer.effect(TenantRateLimiter, TenantRateLimiter.make)
}
