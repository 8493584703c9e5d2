import type { RunConfig } from "@deepnote-rag/core"
import type { MeiliOptions } from "@deepnote-rag/retrieval"
import { defaultStoreOutageTolerance, storeOutageToleranceConfig } from "@deepnote-rag/runs"
import { Config, Context, type Duration, Layer, Option } from "effect"

/**
 * Limits of the HTTP app. Every one has a `DEEPNOTE_SERVER_*` setting (see `ServerSettings.limitsConfig`), but the store
 * outage tolerance, which is `DEEPNOTE_STORE_OUTAGE_TOLERANCE` as for the CLI.
 */
export interface ServerLimits {
  /** Body limit of JSON endpoints (bytes). */
  readonly maxBodyBytes: number
  /** Body limit of document and dataset uploads (bytes). */
  readonly maxUploadBytes: number
  /** Time limit of a request until its response starts (streams are bounded by their own work). */
  readonly requestTimeout: Duration.DurationInput
  /**
   * `/v1/ask` and chat completions answered at once, server-wide. Undefined: chosen at start (`askSlots`), the LLM
   * endpoints' capacity for the LLM engine, 16 for the extractive one.
   */
  readonly askConcurrency: number | undefined
  /** Requests allowed to wait for an answer slot; beyond that, 503 at once. */
  readonly askQueue: number
  /** How long a request waits for an answer slot before a 503. */
  readonly askQueueTimeout: Duration.DurationInput
  /** Questions in flight per run (default for a run; requests may ask for up to `maxRunConcurrency`). */
  readonly runConcurrency: number
  readonly maxRunConcurrency: number
  /** Per-tenant defaults (a tenant's quota overrides them). */
  readonly requestsPerMinute: number
  readonly maxConcurrentRuns: number
  /** On shutdown: how long in-flight requests may finish before the listener closes. */
  readonly drainTimeout: Duration.DurationInput
  /**
   * How long the queue workers' questions wait for a store that cannot be reached (a Postgres restart or failover),
   * holding their jobs, before giving them back (`DEEPNOTE_STORE_OUTAGE_TOLERANCE`, as for `deepnote run`).
   */
  readonly storeOutageTolerance: Duration.DurationInput
}

export interface ServerSettingsData {
  /** Whether requests need an API key. Off only for 127.0.0.1 development (`deepnote serve --no-auth`). */
  readonly auth: boolean
  /** The run config requests start from (engine included: the server runs one engine). */
  readonly defaults: RunConfig
  readonly limits: ServerLimits
  /**
   * Questions this server's queue workers execute at once (runs' questions from the shared work queue); 0: none, this
   * replica only answers the API (`deepnote worker` processes or other replicas execute runs).
   */
  readonly workers: number
  /**
   * Origins browsers may call the API from (CORS); none by default, `*` for any. `DEEPNOTE_SERVER_CORS_ORIGINS`
   * (comma-separated) or `deepnote serve --cors-origin`.
   */
  readonly corsOrigins?: ReadonlyArray<string> | undefined
  /**
   * The Meilisearch index requests may search with `retriever: meilisearch` (the operator's: host, key and index come
   * from `DEEPNOTE_MEILI_*` or `deepnote serve --meili-url`, never from a request). None: requests asking for it get
   * a 400.
   */
  readonly meili?: MeiliOptions | undefined
  /**
   * Set when this server is one of several processes behind one port (`deepnote serve --processes N`): every response
   * carries it as `x-deepnote-process` (this process's pid), so a client or a test can tell which process answered.
   */
  readonly processId?: number | undefined
}

/** The limits when nothing is configured. */
export const defaultLimits: ServerLimits = {
  maxBodyBytes: 1024 * 1024,
  maxUploadBytes: 32 * 1024 * 1024,
  requestTimeout: "120 seconds",
  askConcurrency: undefined,
  askQueue: 256,
  askQueueTimeout: "10 seconds",
  runConcurrency: 8,
  maxRunConcurrency: 64,
  requestsPerMinute: 600,
  maxConcurrentRuns: 2,
  drainTimeout: "10 seconds",
  storeOutageTolerance: defaultStoreOutageTolerance
}

const int = (name: string, fallback: number) => Config.integer(name).pipe(Config.withDefault(fallback))
const duration = (name: string, fallback: Duration.DurationInput) =>
  Config.duration(name).pipe(Config.map((d): Duration.DurationInput => d), Config.withDefault(fallback))

const limitsConfig: Config.Config<ServerLimits> = Config.all({
  maxBodyBytes: int("DEEPNOTE_SERVER_MAX_BODY_BYTES", defaultLimits.maxBodyBytes),
  maxUploadBytes: int("DEEPNOTE_SERVER_MAX_UPLOAD_BYTES", defaultLimits.maxUploadBytes),
  requestTimeout: duration("DEEPNOTE_SERVER_REQUEST_TIMEOUT", defaultLimits.requestTimeout),
  askConcurrency: Config.integer("DEEPNOTE_SERVER_ASK_CONCURRENCY").pipe(
    Config.option,
    Config.map(Option.getOrUndefined)
  ),
  askQueue: int("DEEPNOTE_SERVER_ASK_QUEUE", defaultLimits.askQueue),
  askQueueTimeout: duration("DEEPNOTE_SERVER_ASK_QUEUE_TIMEOUT", defaultLimits.askQueueTimeout),
  runConcurrency: int("DEEPNOTE_SERVER_RUN_CONCURRENCY", defaultLimits.runConcurrency),
  maxRunConcurrency: int("DEEPNOTE_SERVER_MAX_RUN_CONCURRENCY", defaultLimits.maxRunConcurrency),
  requestsPerMinute: int("DEEPNOTE_SERVER_REQUESTS_PER_MINUTE", defaultLimits.requestsPerMinute),
  maxConcurrentRuns: int("DEEPNOTE_SERVER_MAX_CONCURRENT_RUNS", defaultLimits.maxConcurrentRuns),
  drainTimeout: duration("DEEPNOTE_SERVER_DRAIN_TIMEOUT", defaultLimits.drainTimeout),
  storeOutageTolerance: storeOutageToleranceConfig.pipe(Config.map((d): Duration.DurationInput => d))
})

/** `DEEPNOTE_SERVER_CORS_ORIGINS`: comma-separated allowed origins (empty: CORS off). */
const corsOriginsConfig: Config.Config<ReadonlyArray<string>> = Config.string("DEEPNOTE_SERVER_CORS_ORIGINS").pipe(
  Config.withDefault(""),
  Config.map((value) => value.split(",").map((o) => o.trim()).filter((o) => o.length > 0))
)

/** The HTTP app's settings. */
export class ServerSettings
  extends Context.Tag("@deepnote-rag/server/ServerSettings")<ServerSettings, ServerSettingsData>()
{
  static readonly limitsConfig = limitsConfig
  static readonly corsOriginsConfig = corsOriginsConfig

  static readonly layer = (data: ServerSettingsData) => Layer.succeed(ServerSettings, data)
}
