import { Api } from "@deepnote-rag/api"
import { Home } from "@deepnote-rag/core"
import type { LlmSettings } from "@deepnote-rag/llm"
import { Collections } from "@deepnote-rag/retrieval"
import { RunEvents, WorkQueue } from "@deepnote-rag/runs"
import { HttpApiBuilder, HttpApiSwagger, type HttpRouter, HttpServer } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { Ask } from "./Ask/Ask.js"
import { AskLimiter } from "./Ask/AskLimiter.js"
import { AskReplay } from "./Ask/AskReplay.js"
import { AuthenticationLive } from "./Auth/AuthenticationLive.js"
import { TenantRateLimiter } from "./Auth/TenantRateLimiter.js"
import { IngestJobs } from "./Collections/IngestJobs.js"
import { TenantCollections } from "./Collections/TenantCollections.js"
import { ServerEngine } from "./Engine/ServerEngine.js"
import { AskHandlers } from "./Http/Handlers/AskHandlers.js"
import { CollectionsHandlers } from "./Http/Handlers/CollectionsHandlers.js"
import { CompareHandlers } from "./Http/Handlers/CompareHandlers.js"
import { HealthHandlers } from "./Http/Handlers/HealthHandlers.js"
import { OpenAiHandlers } from "./Http/Handlers/OpenAiHandlers.js"
import { RunsHandlers } from "./Http/Handlers/RunsHandlers.js"
import { SweepsHandlers } from "./Http/Handlers/SweepsHandlers.js"
import { InspectorRoute } from "./Http/InspectorRoute.js"
import { Lifecycle } from "./Http/Lifecycle.js"
import { RequestGuard } from "./Http/RequestGuard.js"
import { exposedHeaders } from "./Http/ResponseHeaders.js"
import { RunManager } from "./Runs/RunManager.js"
import { serverWorkersLayer } from "./Runs/ServerWorkers.js"
import { TenantSweeps } from "./Runs/TenantSweeps.js"
import { ServerSettings, type ServerSettingsData } from "./ServerSettings.js"
import { serverStoreLayer } from "./ServerStore.js"

export interface ServerOptions<E> {
  /** The data directory (the CLI's home: same collections and run store). */
  readonly home: string
  readonly settings: ServerSettingsData
  /** LLM servers, built only when the server's engine is `llm`. */
  readonly llmSettings: Layer.Layer<LlmSettings, E>
  /** The run store's URL (`deepnote serve --store`); default `DEEPNOTE_STORE`, else the home's SQLite file. */
  readonly storeUrl?: string | undefined
}

const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide([
    HealthHandlers,
    AskHandlers,
    CollectionsHandlers,
    RunsHandlers,
    SweepsHandlers,
    CompareHandlers,
    OpenAiHandlers
  ]),
  Layer.provide(AuthenticationLive)
)

/** Everything the handlers use, built once per server. */
const services = <E>(options: ServerOptions<E>) => {
  const store = serverStoreLayer(options.storeUrl)
  const base = Layer.mergeAll(
    WorkQueue.layerConfig.pipe(Layer.provide(store)),
    store,
    Collections.layer,
    RunEvents.layer,
    Lifecycle.layer,
    TenantRateLimiter.layer.pipe(Layer.provide(store)),
    AskReplay.layer
  ).pipe(
    Layer.provideMerge(
      Layer.mergeAll(Home.layer(options.home), ServerSettings.layer(options.settings), NodeContext.layer)
    )
  )
  const serverEngine = ServerEngine.layer(options.llmSettings).pipe(Layer.provide(base))
  // the answer slots follow the engine: the LLM endpoints' capacity, or the extractive default
  const engine = Layer.mergeAll(
    serverEngine,
    AskLimiter.layer.pipe(Layer.provide(serverEngine)),
    TenantCollections.layer
  )
    .pipe(Layer.provideMerge(base))
  const features = Layer.mergeAll(
    Ask.layer,
    IngestJobs.layer,
    RunManager.layer,
    serverWorkersLayer(options.llmSettings)
  ).pipe(Layer.provideMerge(engine))
  return TenantSweeps.layer.pipe(Layer.provideMerge(features))
}

/** On shutdown, before the listener closes: refuse new requests, end event streams, let in-flight requests finish. */
const GracefulDrain = Layer.scopedDiscard(
  Effect.gen(function*() {
    const lifecycle = yield* Lifecycle
    const { limits } = yield* ServerSettings
    yield* Effect.addFinalizer(() => lifecycle.drain(limits.drainTimeout))
  })
)

/**
 * The DeepNote HTTP app: the API with its handlers, the request guard (limits and JSON errors), `/openapi.json`, the
 * bundled Swagger UI at `/docs` and the run inspector's pages at `/ui`. Provide an `HttpServer` (NodeHttpServer.layer, or a test server).
 */
export const serverLayer = <E>(
  options: ServerOptions<E>
): Layer.Layer<never, unknown, HttpServer.HttpServer | HttpRouter.HttpRouter.DefaultServices> => {
  const corsOrigins = options.settings.corsOrigins ?? []
  const app = HttpApiBuilder.serve().pipe(
    Layer.provide(HttpApiSwagger.layer({ path: "/docs" })),
    Layer.provide(InspectorRoute),
    // CORS is off unless origins are allowed: a browser page elsewhere cannot use a tenant's key by default
    corsOrigins.length === 0 ? (self) => self : Layer.provide(HttpApiBuilder.middlewareCors({
      allowedOrigins: corsOrigins.includes("*") ? () => true : corsOrigins,
      allowedHeaders: ["authorization", "content-type", "x-request-id", "last-event-id", "accept"],
      exposedHeaders: [...exposedHeaders],
      maxAge: 600
    })),
    Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" })),
    Layer.provide(RequestGuard),
    Layer.provide(ApiLive),
    HttpServer.withLogAddress
  )
  return GracefulDrain.pipe(Layer.provideMerge(app), Layer.provide(services(options)))
}
