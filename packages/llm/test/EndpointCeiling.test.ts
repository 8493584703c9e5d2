import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { endpointCeiling, limitBound, socketsPerEndpoint, spareSockets } from "../src/Client/EndpointCeiling.js"
import { LlmSettingsSchema } from "../src/LlmSettings.js"

const settings = (input: Record<string, unknown>) =>
  Schema.decodeUnknownSync(LlmSettingsSchema)({ endpoints: [{ url: "http://127.0.0.1:1/v1" }], ...input })

describe("sockets per endpoint: never fewer than the calls an endpoint's limit can reach", () => {
  it("an endpoint with no configured limit (adaptive or discovered) can reach the global limit: that many sockets", () => {
    const s = settings({})
    assert.strictEqual(endpointCeiling(s, undefined), s.globalInFlight)
    // the sockets that carried 256 + 8 before, while the adaptive limit could grow to 512
    assert.strictEqual(socketsPerEndpoint(s), s.globalInFlight + spareSockets)
  })

  it("a configured limit is the ceiling: the URL's #N, else perEndpointConcurrency", () => {
    const s = settings({ endpoints: [{ url: "http://a/v1", maxNumSeqs: 32 }, { url: "http://b/v1", maxNumSeqs: 8 }] })
    assert.strictEqual(socketsPerEndpoint(s), 32 + spareSockets)
    assert.strictEqual(socketsPerEndpoint(settings({ perEndpointConcurrency: 12 })), 12 + spareSockets)
  })

  it("bounded by the global limit and by the adaptive limit's own bound", () => {
    assert.strictEqual(
      socketsPerEndpoint(settings({ perEndpointConcurrency: 100, globalInFlight: 20 })),
      20 + spareSockets
    )
    const large = settings({ globalInFlight: 4000 })
    assert.strictEqual(endpointCeiling(large, undefined), limitBound)
    assert.strictEqual(socketsPerEndpoint(large), limitBound + spareSockets)
  })
})
