import type { HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { type Duration, Effect } from "effect"

/**
 * Makes an over-limit body end in a 413 the client can read, not a TCP reset.
 *
 * When a body without Content-Length (chunked) passes the size limit, the platform's body reader stops and destroys
 * the request stream, which destroys the socket while the client is still sending: the client sees "connection reset"
 * and never the 413. Here, destroying an unfinished request body only switches it to discarding what is left (the
 * "lingering close" of HTTP servers such as nginx); `drainBody` then waits for the end of the body (bounded) before
 * the 413 goes out with `Connection: close`.
 */
export const lingerOnDestroy = (request: HttpServerRequest.HttpServerRequest): void => {
  const incoming = NodeHttpServerRequest.toIncomingMessage(request)
  const destroy = incoming.destroy.bind(incoming)
  incoming.destroy = (error?: Error) => {
    if (incoming.complete || incoming.socket?.destroyed === true) return destroy(error)
    incoming.resume()
    return incoming
  }
}

/** Waits (at most `timeout`) until the rest of the request body has arrived and been discarded. */
export const drainBody = (request: HttpServerRequest.HttpServerRequest, timeout: Duration.DurationInput) =>
  Effect.async<void>((resume) => {
    const incoming = NodeHttpServerRequest.toIncomingMessage(request)
    if (incoming.complete || incoming.destroyed) return resume(Effect.void)
    const done = () => resume(Effect.void)
    incoming.once("end", done)
    incoming.once("close", done)
    incoming.once("error", done)
    incoming.resume()
    return Effect.sync(() => {
      incoming.off("end", done)
      incoming.off("close", done)
      incoming.off("error", done)
    })
  }).pipe(Effect.timeoutOption(timeout), Effect.asVoid)
