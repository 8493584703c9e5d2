import { Api, Unavailable } from "@deepnote-rag/api"
import { RunStore } from "@deepnote-rag/store"
import { HttpApiBuilder } from "@effect/platform"
import { Effect, Option } from "effect"
import { AskLimiter } from "../../Ask/AskLimiter.js"
import { describeLlmEndpoints } from "../../Engine/LlmFailure.js"
import { ServerEngine } from "../../Engine/ServerEngine.js"
import { RunManager } from "../../Runs/RunManager.js"
import { Lifecycle } from "../Lifecycle.js"

export const HealthHandlers = HttpApiBuilder.group(Api, "health", (handlers) =>
  Effect.gen(function*() {
    const lifecycle = yield* Lifecycle
    const store = yield* RunStore
    const runs = yield* RunManager
    const limiter = yield* AskLimiter
    const engine = yield* ServerEngine
    return handlers
      .handle("healthz", () => Effect.succeed({ status: "ok" as const, version: "0.1.0" }))
      .handle("readyz", () =>
        Effect.gen(function*() {
          if (yield* lifecycle.draining) return yield* Unavailable.of("the server is shutting down", 1, "not_ready")
          yield* store.listRuns({ limit: 1 }).pipe(
            Effect.mapError(() => Unavailable.of("the store does not answer", 5, "not_ready"))
          )
          const llm = Option.isSome(engine.llmHealth) ? yield* engine.llmHealth.value : undefined
          if (llm !== undefined && llm.state === "outage") {
            return yield* Unavailable.of(
              `the LLM servers are down: ${describeLlmEndpoints(llm.endpoints)}`,
              5,
              "llm_unavailable"
            )
          }
          return {
            status: "ready" as const,
            engine: engine.engine,
            store: "ok" as const,
            activeRuns: yield* runs.activeCount,
            inFlightAsks: yield* limiter.inFlight,
            ...(llm === undefined ? {} : {
              llm: {
                state: llm.state,
                endpoints: llm.endpoints.map((e) => ({ url: e.url, condition: e.condition }))
              }
            })
          }
        }))
  }))
