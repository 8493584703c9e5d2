import { Authentication, type Tenant, Unauthorized } from "@deepnote-rag/api"
import { ApiKeys } from "@deepnote-rag/store"
import { Effect, Layer, Option } from "effect"
import { unavailableOrDie } from "../Http/StoreFailure.js"
import { ServerSettings } from "../ServerSettings.js"
import { TenantRateLimiter } from "./TenantRateLimiter.js"

/** The tenant of every request when auth is off (127.0.0.1 development only). */
export const localTenantId = "local"

/**
 * Bearer API keys → tenant (with its quota over the server's defaults), then the tenant's request rate limit.
 * Unknown, malformed and revoked keys all get the same 401.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const settings = yield* ServerSettings
    const keys = yield* ApiKeys
    const limiter = yield* TenantRateLimiter
    const defaults = settings.limits
    const local: Tenant = {
      id: localTenantId,
      namespace: "",
      requestsPerMinute: defaults.requestsPerMinute,
      maxConcurrentRuns: defaults.maxConcurrentRuns,
      wholeHome: true
    }
    return {
      bearer: (token) =>
        Effect.gen(function*() {
          if (!settings.auth) {
            yield* limiter.take(local)
            return local
          }
          // a store that cannot be reached is 503 (try again shortly), not a 500 with a stack trace in the log
          const principal = yield* keys.verify(token).pipe(Effect.catchTag("StoreError", unavailableOrDie))
          if (Option.isNone(principal)) return yield* Unauthorized.of()
          const quota = principal.value.tenant.quota
          const tenant: Tenant = {
            id: principal.value.tenant.id,
            namespace: `${principal.value.tenant.id}__`,
            requestsPerMinute: quota.requestsPerMinute ?? defaults.requestsPerMinute,
            maxConcurrentRuns: quota.maxConcurrentRuns ?? defaults.maxConcurrentRuns
          }
          yield* limiter.take(tenant)
          yield* Effect.annotateCurrentSpan("deepnote.tenant.id", tenant.id)
          return tenant
        })
    }
  })
)
