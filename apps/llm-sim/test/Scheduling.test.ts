import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { type SimOptionsInput, start } from "../src/index.js"
import { chatBody, chatContent, eventually, post, send, streamedContent } from "./Http.js"

const words = ["data", "node", "byte", "core", "disk", "file", "link", "page", "port", "tree"]

/** A sentence of `n` four-letter words (one token each), distinct per request. */
const sentence = (id: number, k: number, n = 50) =>
  Array.from({ length: n }, (_, i) => words[(id + k + i) % words.length]).join(" ") + "."

/**
 * A note-writer prompt whose `lite` reply is long: three passages of three 50-word sentences; the reply keeps two
 * sentences of each (about 300 tokens), the prompt is about 480 tokens.
 */
const longPrompt = (id: number) =>
  `### Question\nWhat is request ${id} about?\n\n### Passages\n` +
  [0, 1, 2].map((p) => `[${p + 1}] Title: T${p}\n${[0, 1, 2].map((k) => sentence(id, p * 3 + k)).join(" ")}`)
    .join("\n\n")

const longChat = (id: number, extra: Record<string, unknown> = {}) =>
  chatBody("Write a note.", longPrompt(id), { max_tokens: 400, ...extra })

const role = { "x-deepnote-role": "init" }

/** A short reply (the lite answerer: a note's first three words) at the given priority. */
const shortChat = (priority: number) =>
  chatBody("Answer.", "### Question\nWho?\n\n### Note\nAlpha beta gamma delta.", { priority, max_tokens: 20 })

/** Small KV: 1792 tokens (112 blocks) hold three ~480-token prompts, but not three full ~790-token sequences. */
const smallKv: SimOptionsInput = {
  content: "lite",
  kvCapacityTokens: 1792,
  maxModelLen: 1024,
  stepBaseMs: 1,
  tokensPerStep: 4
}

/** A server that only gives the expected replies, quickly (large KV cache, 16 tokens per step). */
const reference = { content: "lite", stepBaseMs: 0.5, tokensPerStep: 16 } as const

describe("KV-cache capacity and pre-emption", () => {
  it.scopedLive("many concurrent long requests on a small KV cache pre-empt; the same load a few at a time does not", () =>
    Effect.gen(function*() {
      const large = yield* start(reference)
      const ids = Array.from({ length: 12 }, (_, i) => i)
      const expected = yield* Effect.forEach(
        ids,
        (id) => Effect.map(post(`${large.url}/v1/chat/completions`, longChat(id), role), chatContent),
        { concurrency: 12 }
      )
      assert.strictEqual(large.metrics.preemptions, 0, "a large KV cache never pre-empts")

      const run = (concurrency: number) =>
        Effect.gen(function*() {
          const sim = yield* start(smallKv)
          let peak = 0
          const sampler = yield* Effect.forkScoped(
            Effect.forever(
              Effect.zipRight(Effect.sync(() => (peak = Math.max(peak, sim.metrics.kvUsage))), Effect.sleep(2))
            )
          )
          const streamed = yield* Effect.forEach(
            ids,
            (id) => post(`${sim.url}/v1/chat/completions`, longChat(id, { stream: true }), role),
            { concurrency }
          )
          yield* Fiber.interrupt(sampler)
          return { sim, peak, contents: streamed.map(streamedContent) }
        })

      const many = yield* run(12)
      assert.isAbove(many.sim.metrics.preemptions, 0, "12 long sequences cannot all grow in 112 blocks")
      assert.deepStrictEqual(many.contents, expected, "a pre-empted stream resumes where it left off, nothing twice")
      assert.isAbove(many.peak, 0.8)
      assert.isAtMost(many.peak, 1)
      assert.strictEqual(many.sim.metrics.success, 12)
      yield* eventually(() => many.sim.metrics.kvUsage === 0)
      const metrics = (yield* send("GET", `${many.sim.url}/metrics`)).text
      assert.include(metrics, `vllm:num_preemptions_total{model_name="deepnote-sim"} ${many.sim.metrics.preemptions}`)
      assert.match(metrics, /\nvllm:kv_cache_usage_perc\{model_name="deepnote-sim"\} 0\n/)

      const few = yield* run(2)
      assert.strictEqual(few.sim.metrics.preemptions, 0, "two sequences fit whole")
      assert.deepStrictEqual(few.contents, expected)
      assert.isAbove(few.peak, 0.3)
    }))

  it.scopedLive("out of KV blocks, fcfs pre-empts the latest admitted and priority the worst priority", () =>
    Effect.gen(function*() {
      const lastToFinish = (schedulingPolicy: "fcfs" | "priority") =>
        Effect.gen(function*() {
          // one token per step: the first request is still running when the third arrives, even on a busy machine
          const sim = yield* start({ ...smallKv, tokensPerStep: 1, schedulingPolicy })
          const finished: Array<number> = []
          // arrival order 9, 0, 5: under fcfs the victim is the last admitted (priority 5), under priority the 9
          yield* Effect.forEach([9, 0, 5], (priority, i) =>
            Effect.zipRight(
              eventually(() => sim.metrics.requests === i),
              Effect.forkScoped(
                Effect.tap(
                  post(`${sim.url}/v1/chat/completions`, longChat(priority, { priority }), role),
                  () => Effect.sync(() => finished.push(priority))
                )
              )
            ))
          yield* eventually(() => finished.length === 3)
          // (the victim may be re-admitted and pre-empted again while both others still grow: vLLM does that too)
          assert.isAtLeast(sim.metrics.preemptions, 1, "three full sequences do not fit")
          return finished[2]
        })
      assert.strictEqual(yield* lastToFinish("fcfs"), 5)
      assert.strictEqual(yield* lastToFinish("priority"), 9)
    }))
})

describe("priority scheduling", () => {
  /** Runs a long blocker, then short requests arriving in `priorities` order while it runs; the order they finish. */
  const finishOrder = (options: SimOptionsInput, priorities: ReadonlyArray<number>) =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", maxNumSeqs: 1, stepBaseMs: 2, ...options })
      const blocker = yield* Effect.forkScoped(post(`${sim.url}/v1/chat/completions`, longChat(0), role))
      yield* eventually(() => sim.metrics.running === 1)
      const finished: Array<string> = []
      for (const [i, priority] of priorities.entries()) {
        yield* Effect.forkScoped(
          Effect.tap(
            post(`${sim.url}/v1/chat/completions`, shortChat(priority), { "x-deepnote-role": "answer" }),
            (r) => Effect.sync(() => finished.push(r.status === 200 ? `${priority}#${i}` : `error ${r.status}`))
          )
        )
        yield* eventually(() => sim.metrics.waiting === i + 1)
      }
      yield* blocker
      yield* eventually(() => finished.length === priorities.length)
      return { finished, preemptions: sim.metrics.preemptions }
    })

  it.scopedLive("waiting requests are admitted by priority, ties by arrival; fcfs ignores the field", () =>
    Effect.gen(function*() {
      const priority = yield* finishOrder({ schedulingPolicy: "priority" }, [5, 1, 3, 1])
      assert.deepStrictEqual(priority.finished, ["1#1", "1#3", "3#2", "5#0"])
      assert.strictEqual(priority.preemptions, 0, "the blocker (priority 0) is better than all of them")
      const fcfs = yield* finishOrder({}, [5, 1, 3, -2])
      assert.deepStrictEqual(fcfs.finished, ["5#0", "1#1", "3#2", "-2#3"], "arrival order; priority accepted, ignored")
    }))

  it.scopedLive("a better-priority arrival pre-empts the worst running request, which resumes without repeating", () =>
    Effect.gen(function*() {
      const scenario = (schedulingPolicy: "fcfs" | "priority") =>
        Effect.gen(function*() {
          const sim = yield* start({ content: "lite", maxNumSeqs: 2, stepBaseMs: 1, schedulingPolicy })
          const finished: Array<string> = []
          const track = (name: string, body: unknown, headers: Record<string, string>) =>
            Effect.forkScoped(
              Effect.tap(
                post(`${sim.url}/v1/chat/completions`, body, headers),
                () => Effect.sync(() => finished.push(name))
              )
            )
          const a = yield* track("A", longChat(1, { priority: 5, stream: true }), role)
          const b = yield* track("B", longChat(2, { priority: 3, stream: true }), role)
          yield* eventually(() => sim.metrics.running === 2 && sim.metrics.generationTokens >= 40)
          yield* track("C", shortChat(0), { "x-deepnote-role": "answer" })
          const [ra, rb] = yield* Effect.all([a, b])
          yield* eventually(() => finished.length === 3)
          return { sim, finished, a: streamedContent(ra), b: streamedContent(rb) }
        })
      const large = yield* start(reference)
      const expected = (id: number) =>
        Effect.map(post(`${large.url}/v1/chat/completions`, longChat(id), role), chatContent)

      const priority = yield* scenario("priority")
      assert.strictEqual(priority.sim.metrics.preemptions, 1)
      assert.strictEqual(priority.finished[0], "C", "C displaced A (priority 5, the worst) and ran at once")
      assert.strictEqual(priority.a, yield* expected(1), "A's stream resumed where it stopped: nothing sent twice")
      assert.strictEqual(priority.b, yield* expected(2))

      const fcfs = yield* scenario("fcfs")
      assert.strictEqual(fcfs.sim.metrics.preemptions, 0)
      assert.notStrictEqual(fcfs.finished[0], "C", "under fcfs C waits for a free slot")
    }))

  it.scopedLive("the priority field must be an integer", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", schedulingPolicy: "priority" })
      const bad = yield* post(`${sim.url}/v1/chat/completions`, shortChat(1.5))
      assert.strictEqual(bad.status, 400)
      assert.strictEqual((yield* post(`${sim.url}/v1/chat/completions`, shortChat(-3))).status, 200)
    }))
})
