import { InternalError, Unavailable } from "@deepnote-rag/api"
import { StoreError } from "@deepnote-rag/store"
import { Effect } from "effect"

/** How long a client is told to wait before trying again while the store cannot be reached. */
const retryAfterSeconds = 5

/** 503 `store_unavailable`: the database cannot be reached (a Postgres restart or failover); try again shortly. */
export const storeUnavailable = (error: StoreError): Unavailable =>
  Unavailable.of(`the run store cannot be reached: ${error.message}`, retryAfterSeconds, "store_unavailable")

/** What a store failure is over HTTP: 503 while the database cannot be reached, else 500. */
export type StoreFailure = Unavailable | InternalError

/**
 * A failure of the run store as the API's error: 503 `store_unavailable` with `Retry-After` when the database cannot be
 * reached (the same request may succeed in a moment; load balancers and clients retry a 503), else 500 `store_error`
 * with the store's message (it names the store and what failed).
 */
export const storeFailure = (error: { readonly message: string }): StoreFailure =>
  error instanceof StoreError && error.unreachable
    ? storeUnavailable(error)
    : InternalError.of(error.message, "store_error")

/**
 * For code that may only fail with 503 (the authentication middleware): an unreachable store is 503
 * `store_unavailable`, any other store failure a defect (500, logged with its cause).
 */
export const unavailableOrDie = (error: StoreError): Effect.Effect<never, Unavailable> =>
  error.unreachable ? Effect.fail(storeUnavailable(error)) : Effect.die(error)
