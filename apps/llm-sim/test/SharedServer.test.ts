import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { start } from "../src/index.js"
import { chatBody, chatContent, eventually, json, post, send } from "./Http.js"

const question = chatBody("Answer.", "### Question\nWho?\n\n### Note\nAlpha beta gamma delta.", { max_tokens: 20 })
const answer = { "x-deepnote-role": "answer" }

describe("a shared server: background load", () => {
  it.scopedLive("keeps N requests of another client in flight, scheduled and counted like any request", () =>
    Effect.gen(function*() {
      const sim = yield* start({
        content: "lite",
        maxNumSeqs: 4,
        stepBaseMs: 5,
        backgroundLoad: 3,
        backgroundPromptTokens: 64,
        backgroundOutputTokens: 24
      })
      yield* eventually(() => sim.metrics.running === 3 && sim.metrics.backgroundRequests > 6)
      assert.strictEqual(sim.metrics.requests, 0, "no client request yet")
      assert.isAbove(sim.metrics.success, 0, "background requests finish and are replaced")
      const replies = yield* Effect.forEach(
        Array.from({ length: 6 }, () => question),
        (body) => post(`${sim.url}/v1/chat/completions`, body, answer),
        { concurrency: 6 }
      )
      assert.deepStrictEqual(replies.map(chatContent), Array(6).fill("Alpha beta gamma"))
      assert.strictEqual(sim.metrics.maxRunning, 4)
      // one slot is left to the client: two of its requests present at once means one waited
      assert.isAtLeast(sim.metrics.maxInSystem, 5, "the client's requests queued behind the other client's")
      yield* eventually(() => sim.metrics.running === 3) // the other client is still there
      const metrics = (yield* send("GET", `${sim.url}/metrics`)).text
      const counter = (name: string) => Number(new RegExp(`\\n${name}\\{[^}]*\\} (\\S+)`).exec(metrics)?.[1])
      assert.strictEqual(counter("sim:requests_total"), 6)
      assert.isAtLeast(counter("sim:background_requests_total"), 9)
      // every background request but the (at most 3) in flight has finished
      assert.isAtLeast(counter("vllm:request_success_total"), 6 + counter("sim:background_requests_total") - 3)
      assert.isAtLeast(counter("vllm:prompt_tokens_total"), 64 * counter("sim:background_requests_total"))
    }))

  it.scopedLive("under the priority policy, a client of better priority displaces the background client", () =>
    Effect.gen(function*() {
      const sim = yield* start({
        content: "lite",
        schedulingPolicy: "priority",
        maxNumSeqs: 2,
        stepBaseMs: 1,
        backgroundLoad: 2,
        backgroundPriority: 10,
        backgroundOutputTokens: 2000
      })
      yield* eventually(() => sim.metrics.running === 2)
      const reply = yield* post(`${sim.url}/v1/chat/completions`, { ...question, priority: 0 }, answer)
      assert.strictEqual(chatContent(reply), "Alpha beta gamma")
      assert.strictEqual(sim.metrics.preemptions, 1, "one background request made room")
      assert.strictEqual(sim.metrics.success, 1, "the background requests (2000 tokens) are still running")
    }))
})

const Models = Schema.Struct({
  data: Schema.Array(Schema.Struct({ id: Schema.String, max_model_len: Schema.Number, max_num_seqs: Schema.Number }))
})
const ErrorBody = Schema.Struct({ message: Schema.String, type: Schema.String })

describe("several models, 529", () => {
  it.scopedLive("serves several model ids: /v1/models lists them, another model is 404", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", model: ["qwen-a", "qwen-b"], maxModelLen: 4096, maxNumSeqs: 8 })
      const models = Schema.decodeUnknownSync(Models)(json(yield* send("GET", `${sim.url}/v1/models`)))
      assert.deepStrictEqual(models.data.map((m) => [m.id, m.max_model_len, m.max_num_seqs]), [
        ["qwen-a", 4096, 8],
        ["qwen-b", 4096, 8]
      ])
      const b = yield* post(`${sim.url}/v1/chat/completions`, { ...question, model: "qwen-b" }, answer)
      assert.strictEqual(b.status, 200)
      assert.strictEqual(Schema.decodeUnknownSync(Schema.Struct({ model: Schema.String }))(json(b)).model, "qwen-b")
      const other = yield* post(`${sim.url}/v1/chat/completions`, { ...question, model: "llama" }, answer)
      assert.strictEqual(other.status, 404)
      assert.deepStrictEqual(
        Schema.decodeUnknownSync(ErrorBody)(json(other)).message,
        "The model `llama` does not exist."
      )
      assert.include(
        (yield* send("GET", `${sim.url}/metrics`)).text,
        `vllm:request_success_total{model_name="qwen-a"} 1`
      )

      const single = yield* start({ content: "lite" })
      const one = Schema.decodeUnknownSync(Models)(json(yield* send("GET", `${single.url}/v1/models`)))
      assert.deepStrictEqual(one.data.map((m) => m.id), ["deepnote-sim"])
    }))

  it.scopedLive("a 529 fault: overloaded, with Retry-After, scripted or by rate", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", retryAfterSeconds: 3 })
      assert.strictEqual((yield* post(`${sim.url}/sim/faults`, { faults: ["529"] })).status, 204)
      const overloaded = yield* post(`${sim.url}/v1/chat/completions`, question, answer)
      assert.strictEqual(overloaded.status, 529)
      assert.strictEqual(overloaded.headers["retry-after"], "3")
      assert.strictEqual(Schema.decodeUnknownSync(ErrorBody)(json(overloaded)).type, "OverloadedError")
      assert.strictEqual((yield* post(`${sim.url}/v1/chat/completions`, question, answer)).status, 200)
      assert.strictEqual((yield* post(`${sim.url}/sim/faults`, { faults: ["530"] })).status, 400)

      const always = yield* start({ content: "lite", faultRate: 1, faults: ["529"] })
      assert.strictEqual((yield* post(`${always.url}/v1/completions`, { prompt: "### Question\nWho?" })).status, 529)
      assert.include((yield* send("GET", `${always.url}/metrics`)).text, `kind="529"} 1`)
    }))
})

describe("load shedding", () => {
  const busy = {
    content: "lite",
    maxNumSeqs: 2,
    stepBaseMs: 1,
    backgroundLoad: 4,
    backgroundOutputTokens: 200
  } as const

  it.scopedLive(
    "refuses a new request with an overload answer while the queue beyond the batch is at the limit",
    () =>
      Effect.gen(function*() {
        // the other client keeps 4 in flight on 2 slots: 2 wait beyond the batch
        const sim = yield* start({ ...busy, shedAtWaiting: 2, faults: ["stall", "529"], retryAfterSeconds: 2 })
        yield* eventually(() => sim.metrics.running === 2 && sim.metrics.waiting === 2)
        const refused = yield* post(`${sim.url}/v1/chat/completions`, question, answer)
        assert.strictEqual(refused.status, 529, "an overload kind of --faults, never a stall")
        assert.strictEqual(refused.headers["retry-after"], "2")
        assert.strictEqual(sim.metrics.faults["529"], 1)
        assert.strictEqual(sim.metrics.faults["stall"], undefined)

        const roomier = yield* start({ ...busy, shedAtWaiting: 3, faults: ["529"] })
        yield* eventually(() => roomier.metrics.running === 2 && roomier.metrics.waiting === 2)
        const admitted = yield* post(`${roomier.url}/v1/chat/completions`, question, answer)
        assert.strictEqual(
          chatContent(admitted),
          "Alpha beta gamma",
          "below the limit the request queues and is served"
        )
        assert.deepStrictEqual(roomier.metrics.faults, {})
      }),
    30_000
  )
})
