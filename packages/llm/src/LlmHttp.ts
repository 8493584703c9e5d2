import { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import * as Undici from "@effect/platform-node/Undici"
import { Effect, Layer } from "effect"
import { socketsPerEndpoint } from "./Client/EndpointCeiling.js"
import { registerDispatcher } from "./Client/Transport.js"
import { LlmSettings } from "./LlmSettings.js"

/**
 * The HTTP client for LLM servers: @effect/platform's HttpClient over ONE pooled undici Agent (keep-alive, no
 * pipelining). `connections` is per origin, so each endpoint gets enough sockets for its concurrency limit plus a few
 * for health checks; `NodeHttpClient.layer` (one TCP connection per request) is never used.
 */
export const undiciAgentLayer = (options: { readonly connections: number; readonly keepAliveTimeoutMs?: number }) =>
  Layer.scoped(
    NodeHttpClient.Dispatcher,
    Effect.acquireRelease(
      Effect.sync(() =>
        new Undici.Agent({
          connections: options.connections,
          keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
          pipelining: 1
        })
      ),
      (agent) => Effect.promise(() => agent.close())
    )
  )

/**
 * The HttpClient over the pooled Agent. The LLM client's non-streamed attempts go straight to that Agent
 * (`Client/Transport.ts`: same sockets and request, less CPU per call); probes, streams and other callers use the
 * HttpClient.
 */
export const httpClientLayer = (
  options: { readonly connections: number; readonly keepAliveTimeoutMs?: number }
): Layer.Layer<HttpClient.HttpClient> =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(NodeHttpClient.Dispatcher, (agent) => registerDispatcher(NodeHttpClient.makeUndici(agent), agent))
  ).pipe(Layer.provide(undiciAgentLayer(options)))

/** Sized from the settings: as many sockets per endpoint as its calls can ever need, plus spares (`EndpointCeiling`). */
export const llmHttpClientLayer = Layer.unwrapEffect(
  Effect.map(LlmSettings, (s) => httpClientLayer({ connections: socketsPerEndpoint(s) }))
)
