import { seededRandom } from "@deepnote-rag/core"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer, Schema, type Scope } from "effect"
import * as Http from "node:http"
import { routes } from "./Api/Routes.js"
import { runBackgroundLoad } from "./Background.js"
import { liteEngine } from "./Content.js"
import { extractiveEngine } from "./ExtractiveContent.js"
import { FaultInjector } from "./Faults.js"
import { PrefixCache } from "./PrefixCache.js"
import { makeScheduler } from "./Scheduler.js"
import { policyNamed } from "./SchedulingPolicy.js"
import { SimMetrics } from "./SimMetrics.js"
import { servedModels, SimOptions, type SimOptionsInput } from "./SimOptions.js"
import type { SimState } from "./SimState.js"

export interface LlmSimService {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly port: number
  readonly options: SimOptions
  readonly metrics: SimMetrics
  /** Scripted faults (`failNext`) and `down` for tests. */
  readonly faults: FaultInjector
}

/** Starts a simulator on 127.0.0.1 for the life of the scope (port 0 → a free port). */
export const start = (input: SimOptionsInput = {}): Effect.Effect<LlmSimService, never, Scope.Scope> =>
  Effect.gen(function*() {
    const options = yield* Schema.decodeUnknown(SimOptions)(input, { errors: "all" })
    const metrics = new SimMetrics(options.maxNumSeqs)
    const scheduler = yield* makeScheduler({ ...options, policy: policyNamed(options.schedulingPolicy) }, metrics)
    const faults = new FaultInjector(
      options.faultRate,
      options.faultSeed,
      options.faults,
      options.shedAtWaiting === undefined ? undefined : { atWaiting: options.shedAtWaiting, excess: scheduler.excess }
    )
    if (options.backgroundLoad > 0) yield* Effect.forkScoped(runBackgroundLoad(scheduler, metrics, options))
    const state: SimState = {
      options,
      models: servedModels(options),
      metrics,
      faults,
      scheduler,
      engine: options.content === "lite" ? liteEngine : extractiveEngine,
      prefixCache: options.prefixCaching
        ? new PrefixCache(options.blockSize, Math.floor(options.kvCapacityTokens / options.blockSize))
        : undefined,
      random: seededRandom(options.faultSeed + 1),
      unseeded: seededRandom(options.faultSeed + 2),
      nextId: 1
    }
    const server = yield* NodeHttpServer.make(() => {
      const s = Http.createServer()
      // Longer than any client's idle keep-alive, so the server never closes a socket a client is about to reuse.
      s.keepAliveTimeout = 120_000
      s.headersTimeout = 121_000
      s.requestTimeout = 0
      return s
    }, { port: options.port, host: "127.0.0.1" })
    yield* server.serve(routes(state)).pipe(Effect.provide(NodeHttpServer.layerContext))
    const address = server.address
    const port = address._tag === "TcpAddress" ? address.port : 0
    return { url: `http://127.0.0.1:${port}`, port, options, metrics, faults }
  }).pipe(Effect.orDie)

/** The simulator as a service, for tests and benchmarks in the same process. */
export class LlmSim extends Context.Tag("@deepnote-rag/llm-sim/LlmSim")<LlmSim, LlmSimService>() {
  static readonly layer = (input: SimOptionsInput = {}) => Layer.scoped(LlmSim, start(input))
}
