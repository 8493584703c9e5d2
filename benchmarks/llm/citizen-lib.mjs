// Building blocks of citizen.mjs: the simulator in a child process, client stacks, closed-loop workers, samplers.
import { defaultRunConfig, samplingFor } from "@deepnote-rag/core"
import { httpClientLayer, LlmCache, LlmCallPolicy, LlmClient, LlmSettings, UsageLedger } from "@deepnote-rag/llm"
import { Context, Effect, Layer, Logger, LogLevel } from "effect"
import * as Bench from "../lib/bench.mjs"

export const startSim = Bench.startSim
/** Stops the simulator at once (SIGKILL), as the phases here have always done. */
export const stopSim = (sim) => Bench.stopSim(sim, "SIGKILL")
export const withSim = (args, f) => Bench.withSim(args, f, "SIGKILL")

export const getJson = (url) => fetch(url).then((r) => r.json())
export const post = (url) => fetch(url, { method: "POST" })

/** The server's load now, from its /metrics (the same series the client reads). */
export const serverLoad = async (url) => {
  const text = await (await fetch(`${url}/metrics`)).text()
  const pick = (name) => Number(new RegExp(`^${name}\\{[^}]*\\} (\\S+)`, "m").exec(text)?.[1] ?? "NaN")
  return {
    running: pick("vllm:num_requests_running"),
    waiting: pick("vllm:num_requests_waiting"),
    kv: pick("vllm:kv_cache_usage_perc"),
    preemptions: pick("vllm:num_preemptions_total"),
    generationTokens: pick("vllm:generation_tokens_total")
  }
}

/** Samples the server's waiting queue every `everyMs` until stopped: for its percentiles. */
export const sampleWaiting = (url, everyMs = 50) => {
  const samples = []
  let on = true
  const loop = (async () => {
    while (on) {
      try {
        samples.push((await serverLoad(url)).waiting)
      } catch {
        // the server is gone: the phase is ending
      }
      await new Promise((r) => setTimeout(r, everyMs))
    }
  })()
  return async () => {
    on = false
    await loop
    return samples
  }
}

export const percentile = (values, p) => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]
}
export const median = (values) => percentile(values, 0.5)

/** One client stack (its own endpoint pool, as a separate process would have), warnings only. */
export const clientStack = (url, settings = {}) =>
  LlmClient.layer.pipe(
    Layer.provideMerge(
      Layer.mergeAll(UsageLedger.layer, LlmCache.layer({ file: undefined }), httpClientLayer({ connections: 300 }))
    ),
    Layer.provideMerge(LlmSettings.layer({ endpoints: [{ url }], cache: false, ...settings })),
    Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
  )

export const buildClient = (url, settings) =>
  Effect.map(Layer.build(clientStack(url, settings)), (ctx) => ({
    client: Context.get(ctx, LlmClient),
    ledger: Context.get(ctx, UsageLedger)
  }))

const note = "Jaws is a 1975 American thriller film directed by Steven Spielberg, based on the novel by Peter Benchley. "
const cycle = ["init", "plan", "update", "judge", "plan", "update", "judge", "answer"]

/** A role-shaped call of worker `w`, call `n`: a question's calls in order, with a growing note. */
export const call = (w, n, tag = "") => {
  const role = cycle[n % cycle.length]
  return {
    role,
    questionId: `${tag}w${w}-q${Math.floor(n / cycle.length)}`,
    messages: [
      { role: "system", content: `You are the ${role} step of a question answering system. Follow the format.` },
      {
        role: "user",
        content: `### Question\nWho directed Jaws? (${tag}${w}/${n})\n\n### Note\n${note.repeat(2 + (n % 4))}\n\n### Passages\n[1] Title: Jaws\n${note}`
      }
    ],
    sampling: samplingFor(defaultRunConfig, role)
  }
}

/**
 * `workers` closed loops, each making one call after another until `untilMs` (epoch): the way questions drive the
 * client. Records each call's end time, latency and outcome.
 */
export const closedLoop = (client, workers, untilMs, { tag = "", policy } = {}) => {
  const done = []
  const worker = (w) =>
    Effect.gen(function*() {
      for (let n = 0; Date.now() < untilMs; n++) {
        const start = Date.now()
        const one = client.chat(call(w, n, tag))
        const exit = yield* Effect.exit(policy === undefined ? one : one.pipe(LlmCallPolicy.locally(policy)))
        done.push({
          end: Date.now(),
          latencyMs: Date.now() - start,
          ok: exit._tag === "Success",
          attempts: exit._tag === "Success" ? exit.value.attempts : undefined,
          completionTokens: exit._tag === "Success" ? exit.value.usage.completionTokens : 0
        })
      }
    })
  return Effect.as(
    Effect.forEach(Array.from({ length: workers }, (_, w) => w), worker, { concurrency: "unbounded", discard: true }),
    done
  )
}

/** Calls and tokens that finished in [from, to). */
export const windowOf = (done, from, to) => {
  const inside = done.filter((d) => d.end >= from && d.end < to && d.ok)
  const seconds = (to - from) / 1000
  return {
    calls: inside.length,
    callsPerSecond: inside.length / seconds,
    tokensPerSecond: inside.reduce((n, d) => n + d.completionTokens, 0) / seconds
  }
}
