import type { LlmSettingsData } from "../LlmSettingsSchema.js"

/** The most an adaptive or discovered limit may reach, whatever the global in-flight limit. */
export const limitBound = 1024

/** Spare sockets per endpoint beyond its calls: health checks, `/v1/models` and `/metrics` polls. */
export const spareSockets = 8

/**
 * The bound of a limit the client finds for an endpoint without a configured one — the adaptive limit, or the batch
 * size the server reports plus headroom: the global in-flight limit, at most 1,024.
 */
export const foundLimitCeiling = (settings: Pick<LlmSettingsData, "globalInFlight">): number =>
  Math.min(settings.globalInFlight, limitBound)

/**
 * The most calls one endpoint can ever have in flight: its fixed limit (the URL's `#N` or the settings'
 * `maxNumSeqs`, else `perEndpointConcurrency`), else `foundLimitCeiling`.
 */
export const endpointCeiling = (
  settings: Pick<LlmSettingsData, "perEndpointConcurrency" | "globalInFlight">,
  maxNumSeqs: number | undefined
): number => maxNumSeqs ?? settings.perEndpointConcurrency ?? foundLimitCeiling(settings)

/**
 * Sockets the HTTP agent may open to each endpoint (undici's `connections` is per origin): the largest endpoint's
 * ceiling within the global limit, plus the spares — so no limit ever grows past the sockets that carry its calls
 * (calls beyond them would wait in the agent's queue, unseen by the limit and by the server's metrics).
 */
export const socketsPerEndpoint = (
  settings: Pick<LlmSettingsData, "endpoints" | "perEndpointConcurrency" | "globalInFlight">
): number =>
  Math.min(Math.max(...settings.endpoints.map((e) => endpointCeiling(settings, e.maxNumSeqs))), settings.globalInFlight)
  + spareSockets
