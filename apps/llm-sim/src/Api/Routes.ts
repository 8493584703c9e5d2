import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Schema } from "effect"
import { FaultKind } from "../SimOptions.js"
import type { SimState } from "../SimState.js"
import { chatHandler } from "./Chat.js"
import { completionsHandler } from "./Completions.js"
import { embeddingsHandler } from "./Embeddings.js"
import { jsonError } from "./Generate.js"
import { rerankHandler, scoreHandler } from "./Scores.js"

const Window = Schema.Struct({
  from: Schema.optional(Schema.NumberFromString),
  to: Schema.optional(Schema.NumberFromString)
})
const FaultScript = Schema.Struct({ faults: Schema.Array(FaultKind) })

/** Every route of the simulator: the OpenAI-compatible API, health, Prometheus metrics and `/sim/*` controls. */
export const routes = (state: SimState) =>
  HttpRouter.empty.pipe(
    HttpRouter.post("/v1/chat/completions", chatHandler(state)),
    HttpRouter.post("/v1/completions", completionsHandler(state)),
    HttpRouter.post("/v1/embeddings", embeddingsHandler(state)),
    HttpRouter.post("/v1/rerank", rerankHandler(state)),
    HttpRouter.post("/rerank", rerankHandler(state)),
    HttpRouter.post("/v2/rerank", rerankHandler(state)),
    HttpRouter.post("/score", scoreHandler(state)),
    HttpRouter.post("/v1/score", scoreHandler(state)),
    HttpRouter.get(
      "/v1/models",
      Effect.sync(() =>
        HttpServerResponse.unsafeJson({
          object: "list",
          data: state.models.map((id) => ({
            id,
            object: "model",
            created: 0,
            owned_by: "deepnote-llm-sim",
            root: state.models[0],
            max_model_len: state.options.maxModelLen,
            ...(state.options.advertiseMaxNumSeqs ? { max_num_seqs: state.options.maxNumSeqs } : {})
          }))
        })
      )
    ),
    HttpRouter.get(
      "/health",
      Effect.sync(() =>
        state.faults.down ? HttpServerResponse.empty({ status: 503 }) : HttpServerResponse.empty({ status: 200 })
      )
    ),
    HttpRouter.get(
      "/metrics",
      Effect.sync(() =>
        HttpServerResponse.text(state.metrics.render(state.models[0]), { contentType: "text/plain; version=0.0.4" })
      )
    ),
    HttpRouter.get("/sim/stats", Effect.sync(() => HttpServerResponse.unsafeJson(state.metrics.stats()))),
    HttpRouter.get(
      "/sim/occupancy",
      HttpServerRequest.schemaSearchParams(Window).pipe(
        Effect.map((w) => HttpServerResponse.unsafeJson(state.metrics.occupancy(w.from, w.to))),
        Effect.catchTag("ParseError", (e) => Effect.succeed(jsonError(400, e.message)))
      )
    ),
    HttpRouter.post(
      "/sim/faults",
      HttpServerRequest.schemaBodyJson(FaultScript).pipe(
        Effect.map((s) => {
          state.faults.failNext(s.faults)
          return HttpServerResponse.empty({ status: 204 })
        }),
        Effect.catchAll((e) => Effect.succeed(jsonError(400, e.message)))
      )
    ),
    HttpRouter.post(
      "/sim/down",
      Effect.sync(() => {
        state.faults.down = true
        return HttpServerResponse.empty({ status: 204 })
      })
    ),
    HttpRouter.post(
      "/sim/up",
      Effect.sync(() => {
        state.faults.down = false
        return HttpServerResponse.empty({ status: 204 })
      })
    ),
    HttpRouter.catchAll(() => Effect.succeed(jsonError(404, "Not Found", "NotFoundError")))
  )
