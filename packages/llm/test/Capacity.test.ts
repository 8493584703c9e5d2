import { assert, describe, it } from "@effect/vitest"
import { capacityOf, type EndpointStatus } from "../src/index.js"

const endpoint = (over: Partial<EndpointStatus>): EndpointStatus => ({
  url: "http://127.0.0.1:1/v1",
  health: "healthy",
  condition: "up",
  since: new Date(0),
  lastError: undefined,
  inFlight: 0,
  limit: 64,
  requests: 0,
  ejections: 0,
  consecutiveFailures: 0,
  models: [],
  maxModelLen: undefined,
  maxNumSeqs: undefined,
  limitFixed: false,
  structured: "structured_outputs",
  ...over
})

describe("capacityOf: questions in flight that fill the endpoints' batches", () => {
  it("sums reported max_num_seqs and adds the pool's headroom", () => {
    const c = capacityOf([endpoint({ maxNumSeqs: 32 }), endpoint({ maxNumSeqs: 32 })], 4096)
    assert.deepStrictEqual(c, {
      sequences: 64,
      questions: 72,
      reason: "2 endpoints × max_num_seqs 32 from /v1/models, + 8 headroom"
    })
  })

  it("a configured limit wins over what the server reports; unknown servers are assumed at 64", () => {
    const c = capacityOf([endpoint({ limit: 5, limitFixed: true, maxNumSeqs: 256 }), endpoint({ limit: 8 })], 4096)
    assert.strictEqual(c.sequences, 69)
    assert.strictEqual(c.questions, 69 + 9)
    assert.strictEqual(
      c.reason,
      "1 endpoint × limit 5 configured; 1 endpoint × 64 assumed (none configured or reported), + 9 headroom"
    )
  })

  it("different batch sizes are listed, and the result is capped", () => {
    const c = capacityOf([endpoint({ maxNumSeqs: 16 }), endpoint({ maxNumSeqs: 48 })], 50)
    assert.strictEqual(c.questions, 50)
    assert.strictEqual(c.reason, "2 endpoints, max_num_seqs 16 + 48 from /v1/models, + 8 headroom, capped at 50")
  })
})
