import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Context, Schema } from "effect"
import { RateLimited, Unauthorized, Unavailable } from "./Errors.js"

/** The tenant a request acts for, with its effective limits. */
export interface Tenant {
  readonly id: string
  /** Prefix of the tenant's collection names in the home (`<id>__`; empty for the local tenant of `--no-auth`). */
  readonly namespace: string
  readonly requestsPerMinute: number
  readonly maxConcurrentRuns: number
  /**
   * The local tenant of `deepnote serve --no-auth`: it sees every run and sweep of the home, the CLI's included (they
   * have no owner); tenants with keys see only the runs they started.
   */
  readonly wholeHome?: boolean | undefined
}

/** Provided to every authenticated handler by the `Authentication` middleware. */
export class CurrentTenant extends Context.Tag("@deepnote-rag/api/CurrentTenant")<CurrentTenant, Tenant>() {}

/**
 * Bearer API keys (`Authorization: Bearer dn_…`). Resolves the key's tenant and applies the tenant's request rate
 * limit (429 with Retry-After); 503 when the store that holds keys and limits cannot be reached. Switched off only for `deepnote serve --no-auth` on 127.0.0.1.
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("@deepnote-rag/api/Authentication", {
  failure: Schema.Union(Unauthorized, RateLimited, Unavailable),
  provides: CurrentTenant,
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "An API key from `deepnote keys create --tenant T`.")
    )
  }
}) {}
