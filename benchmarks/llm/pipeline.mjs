// What run.mjs and prefix-layout.mjs share: the client stack, and one phase of the real pipeline against a fresh
// simulator in a child process (its CPU is not the client's).
import { answerQuestion } from "@deepnote-rag/core"
import { httpClientLayer, LlmCache, LlmClient, LlmEngine, LlmSettings, UsageLedger } from "@deepnote-rag/llm"
import { Context, Effect, Layer, Logger, LogLevel } from "effect"
import { withSim as withSimArgs } from "../lib/bench.mjs"

const getJson = (url) => Effect.promise(() => fetch(url).then((r) => r.json()))
const cpuMs = (c) => (c.user + c.system) / 1000

// The client stack with static sizing: per-endpoint concurrency discovered from the server (max_num_seqs plus
// headroom, `adaptiveConcurrency: false`), so that waves and pool run under the same in-flight limit; cache off so
// every call reaches the server. (The adaptive limit is measured in citizen.mjs.)
export const clientStack = (url, seqs) =>
  LlmClient.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(UsageLedger.layer, LlmCache.layer({ file: undefined }), httpClientLayer({ connections: seqs * 2 }))),
    Layer.provideMerge(
      LlmSettings.layer({ endpoints: [{ url }], cache: false, attemptTimeoutMs: 120_000, adaptiveConcurrency: false })
    ),
    Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
  )

/**
 * Runs `questions` through `drive(run, limit)` (run: one question → its result or undefined) against a fresh simulator
 * started with `simArgs`; resolves the measurements (wall and simulated GPU time, occupancy, tokens, prefix cache, the
 * client's usage ledger by role). The first question is run once before measuring (JIT, connections).
 */
export const phase = ({ label, questions, config, retriever, seqs, simArgs, drive }) =>
  withSimArgs(["--port", "0", "--max-num-seqs", String(seqs), ...simArgs], (sim) =>
    Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const ctx = yield* Layer.build(LlmEngine.rolesLayer.pipe(Layer.provideMerge(clientStack(sim.url, seqs)), Layer.merge(retriever)))
      const limit = (yield* Context.get(ctx, LlmClient).endpoints)[0].limit
      const one = (q) => answerQuestion(q, config).pipe(Effect.provide(ctx), Effect.option, Effect.map((o) => (o._tag === "Some" ? o.value : undefined)))
      let unfinished = questions.length
      let tailAt
      const tracked = (q) => one(q).pipe(Effect.ensuring(Effect.sync(() => {
        if (--unfinished < seqs && tailAt === undefined) tailAt = Date.now()
      })))
      yield* one(questions[0]) // warm-up: JIT and connections, not measured
      const ledger = Context.get(ctx, UsageLedger)
      const usage0 = yield* ledger.snapshot
      const warm = yield* getJson(`${sim.url}/sim/stats`)
      const c0 = process.cpuUsage()
      const t0 = Date.now()
      const results = yield* drive(tracked, limit)
      const t1 = Date.now()
      const cpu = cpuMs(process.cpuUsage(c0))
      const stats = yield* getJson(`${sim.url}/sim/stats`)
      const usage1 = yield* ledger.snapshot
      const whileWork = yield* getJson(`${sim.url}/sim/occupancy?from=${t0}&to=${tailAt ?? t1}`)
      const whole = yield* getJson(`${sim.url}/sim/occupancy?from=${t0}&to=${t1 + 1000}`)
      const calls = stats.requests - warm.requests
      const seconds = (t1 - t0) / 1000
      const byRole = Object.fromEntries(Object.entries(usage1.byRole).map(([role, u]) => {
        const before = usage0.byRole[role] ?? { promptTokens: 0, cachedPromptTokens: 0, calls: 0, parseFailures: 0 }
        return [role, {
          calls: u.calls - before.calls,
          promptTokens: u.promptTokens - before.promptTokens,
          cachedPromptTokens: u.cachedPromptTokens - before.cachedPromptTokens,
          parseFailures: u.parseFailures - before.parseFailures
        }]
      }))
      return {
        label,
        clientInFlightLimit: limit,
        questions: results.length,
        failed: results.filter((r) => r === undefined).length,
        correct: results.filter((r, i) => r && questions[i].answers.some((a) => r.answer.text.toLowerCase().includes(a.toLowerCase()))).length,
        answers: results.map((r) => r?.answer.text ?? null),
        wallSeconds: seconds,
        llmCalls: calls,
        callsPerSecond: calls / seconds,
        clientCpuMsPerCall: cpu / calls,
        occupancyWhileWorkRemains: whileWork.occupancy,
        occupancyWholeRun: whole.occupancy,
        generationTokens: stats.generationTokens - warm.generationTokens,
        // Simulated GPU time: the sum of nominal step times. Wall time above it means the machine's CPU, not the
        // simulated model, set the pace (steps ran late).
        simBusySeconds: whole.busyMs / 1000,
        callsPerSimBusySecond: calls / (whole.busyMs / 1000),
        prefixCache: {
          promptTokens: stats.prefixCacheQueries - warm.prefixCacheQueries,
          cachedTokens: stats.prefixCacheHits - warm.prefixCacheHits,
          hitRate: (stats.prefixCacheHits - warm.prefixCacheHits) / (stats.prefixCacheQueries - warm.prefixCacheQueries)
        },
        byRole
      }
    })))
  )
