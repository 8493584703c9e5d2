import { Api } from "@deepnote-rag/api"
import { defaultRunConfig, Home, type RunConfig } from "@deepnote-rag/core"
import { LlmSettings } from "@deepnote-rag/llm"
import { Collections } from "@deepnote-rag/retrieval"
import { ApiKeys } from "@deepnote-rag/store"
import { FileSystem, HttpApiClient, HttpClient, HttpClientRequest, HttpServer } from "@effect/platform"
import { NodeContext, NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Redacted } from "effect"
import { createServer } from "node:http"
import * as Path from "node:path"
import {
  defaultLimits,
  serverLayer,
  type ServerLimits,
  type ServerSettingsData,
  serverStoreLayer
} from "../src/index.js"

export const sampleDir = Path.resolve(import.meta.dirname, "../../../examples/sample")
export const sampleCorpus = Path.join(sampleDir, "corpus/hotpotqa-paragraphs.jsonl")
export const sampleQuestions = Path.join(sampleDir, "questions/hotpotqa.jsonl")

/** A fresh home directory, removed when the test's scope closes. */
export const makeHome = Effect.flatMap(
  FileSystem.FileSystem,
  (fs) => fs.makeTempDirectoryScoped({ prefix: "deepnote-server-" })
).pipe(
  Effect.provide(NodeContext.layer),
  Effect.orDie
)

export const settings = (
  overrides: {
    readonly auth?: boolean
    readonly limits?: Partial<ServerLimits>
    readonly defaults?: RunConfig
    readonly workers?: number
  } = {}
): ServerSettingsData => ({
  auth: overrides.auth ?? true,
  defaults: overrides.defaults ?? defaultRunConfig,
  // tests poll job and run status every 20 ms; the request limit itself is tested in Limits.test.ts
  limits: { ...defaultLimits, requestsPerMinute: 1_000_000, ...overrides.limits },
  workers: overrides.workers ?? 2
})

/** NodeHttpServer.layerTest, but bound to 127.0.0.1 (a random port) instead of every interface. */
export const loopbackTest = HttpServer.layerTestClient.pipe(
  Layer.provide(NodeHttpClient.layerWithoutAgent),
  Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: false })),
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
)

/** The server in process on a random 127.0.0.1 port, with an HttpClient that targets it. */
export const testServer = (
  home: string,
  data: ServerSettingsData = settings(),
  storeUrl?: string
): Layer.Layer<HttpClient.HttpClient | HttpServer.HttpServer, unknown> =>
  serverLayer({ home, settings: data, llmSettings: LlmSettings.layerConfig, storeUrl }).pipe(
    Layer.provideMerge(loopbackTest)
  )

/** The server on a real 127.0.0.1 port (for clients outside Effect: openai, fetch). */
export const portServer = (
  home: string,
  data: ServerSettingsData = settings()
): Layer.Layer<HttpServer.HttpServer, unknown> =>
  serverLayer({ home, settings: data, llmSettings: LlmSettings.layerConfig }).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
  )

/** The base URL of a running server. */
export const baseUrl = Effect.map(
  HttpServer.HttpServer,
  (server) => server.address._tag === "TcpAddress" ? `http://127.0.0.1:${server.address.port}` : ""
)

/** Creates an API key for a tenant in the home's store, or the store at `storeUrl` (as `deepnote keys create` does). */
export const createKey = (home: string, tenantId: string, storeUrl?: string) =>
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    const created = yield* keys.create({ tenantId, label: "test" })
    return Redacted.value(created.key)
  }).pipe(Effect.provide(serverStoreLayer(storeUrl).pipe(Layer.provide(Home.layer(home)))))

/** Indexes the sample corpus as a tenant's collection (`<tenant>__<name>` in the home). */
export const seedCollection = (home: string, storedName: string) =>
  Effect.gen(function*() {
    const collections = yield* Collections
    yield* collections.index(storedName, [sampleCorpus])
  }).pipe(Effect.provide(Collections.layer.pipe(Layer.provide(Home.layer(home)))), Effect.scoped)

/** A fresh home with one tenant, its API key, and the sample corpus indexed as that tenant's collection `name`. */
export const homeWithTenant = (tenantId: string, name: string) =>
  Effect.gen(function*() {
    const home = yield* makeHome
    const key = yield* createKey(home, tenantId)
    yield* seedCollection(home, `${tenantId}__${name}`)
    return { home, key }
  })

/** The typed client with a bearer key. */
export const clientWith = (key: string) =>
  HttpApiClient.make(Api, { transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(key)) })

/** A raw request with a bearer key, returning status, headers and body text. */
export const raw = (request: HttpClientRequest.HttpClientRequest, key?: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(key === undefined ? request : HttpClientRequest.bearerToken(request, key))
    return { status: response.status, headers: response.headers, text: yield* response.text }
  })
