import {
  describeConfigFailure,
  errorCode,
  errorMessage,
  Home,
  type RunConfig,
  withoutCredentials
} from "@deepnote-rag/core"
import type { LlmSettings } from "@deepnote-rag/llm"
import type { MeiliOptions } from "@deepnote-rag/retrieval"
import { serverLayer, ServerSettings, serverStoreLayer } from "@deepnote-rag/server"
import { Command, Options } from "@effect/cli"
import { NodeHttpServer } from "@effect/platform-node"
import { Duration, Effect, Layer, Option, Predicate, Runtime } from "effect"
import { createServer } from "node:http"
import { knobOptions } from "../config/Knobs.js"
import { resolveRunConfig } from "../config/ResolveConfig.js"
import { llmOptions, llmSettingsLayer } from "../engine/LlmOptions.js"
import { meiliOptions, resolveMeiliSettings } from "../engine/MeiliOptions.js"
import { CommandFailed, UsageError } from "../Errors.js"
import { StandardStreams } from "../render/StandardStreams.js"
import {
  announceReady,
  checkListen,
  isServeProcess,
  processesFor,
  superviseProcesses
} from "../serve/ServeProcesses.js"
import { boundedInteger, configFileOption, homeLayer, homeOption, maxConcurrency, storeOption } from "./Common.js"

const loopbackHosts = ["127.0.0.1", "localhost", "::1"]

/** Why the listener could not start, in words: the address in use or not allowed, else the error's own message. */
const listenFailure = (error: unknown, host: string, port: number): string => {
  const code = Predicate.hasProperty(error, "cause") ? errorCode(error.cause) : undefined
  if (code === "EADDRINUSE") return `cannot listen on ${host}:${port}: the address is already in use (EADDRINUSE)`
  if (code === "EACCES") {
    return `cannot listen on ${host}:${port}: permission denied (EACCES; ports below 1024 need privileges)`
  }
  if (code === "EADDRNOTAVAIL") {
    return `cannot listen on ${host}:${port}: no such address on this machine (EADDRNOTAVAIL)`
  }
  return `the server stopped: ${errorMessage(error)}`
}

export interface HomeServerInput {
  readonly host: string
  readonly port: number
  readonly noAuth: boolean
  readonly workers: number
  readonly corsOrigins: ReadonlyArray<string>
  readonly home: Option.Option<string>
  readonly store: Option.Option<string>
  readonly defaults: RunConfig
  readonly llmSettings: Layer.Layer<LlmSettings, unknown>
  /** The operator's Meilisearch index for `retriever: meilisearch` requests; none: they are refused. */
  readonly meili?: MeiliOptions | undefined
  /** This process's pid when it is one of several behind the port (`--processes`): sent as `x-deepnote-process`. */
  readonly processId?: number | undefined
}

/**
 * The HTTP app over a home as `deepnote serve` builds it (checked flags, limits and CORS from the environment), not yet
 * listening: its layer (which provides the bound `HttpServer`), the home's directory, and how a failure to listen reads.
 */
export const homeServer = (input: HomeServerInput) =>
  Effect.gen(function*() {
    if (input.noAuth && !loopbackHosts.includes(input.host)) {
      return yield* new UsageError({
        message: `--no-auth is only allowed on 127.0.0.1 or localhost (got --host ${input.host})`
      })
    }
    if (!Number.isInteger(input.port) || input.port < 0 || input.port > 65535) {
      return yield* new UsageError({ message: `--port must be between 0 and 65535 (got ${input.port})` })
    }
    const home = yield* Effect.provide(Home, homeLayer(input.home)).pipe(
      Effect.mapError((e) => new UsageError({ message: errorMessage(e) }))
    )
    const limits = yield* ServerSettings.limitsConfig.pipe(
      Effect.mapError((e) => new UsageError({ message: describeConfigFailure(e) }))
    )
    const corsOrigins = input.corsOrigins.length > 0
      ? input.corsOrigins
      : yield* ServerSettings.corsOriginsConfig.pipe(
        Effect.mapError((e) => new UsageError({ message: describeConfigFailure(e) }))
      )
    const layer = serverLayer({
      home: home.root,
      settings: {
        auth: !input.noAuth,
        defaults: input.defaults,
        limits,
        workers: input.workers,
        corsOrigins,
        meili: input.meili,
        processId: input.processId
      },
      storeUrl: Option.getOrUndefined(input.store),
      llmSettings: input.llmSettings
    }).pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port: input.port, host: input.host })))
    const failure = (e: unknown): Effect.Effect<never, UsageError | CommandFailed> =>
      e instanceof UsageError
        ? Effect.fail(e)
        : Effect.fail(new CommandFailed({ message: listenFailure(e, input.host, input.port) }))
    return { layer, home: home.root, failure, drainMs: Duration.toMillis(Duration.decode(limits.drainTimeout)) }
  })

/**
 * `deepnote serve`: the HTTP app over the same home as the CLI (collections, run store, keys), or a shared store
 * (`--store postgres://…`) for several replicas. The run knobs and the engine flags set the server's defaults; limits
 * come from `DEEPNOTE_SERVER_*`. Runs are executed by queue workers (this server hosts `--workers`). SIGINT/SIGTERM
 * drain in-flight requests; questions in flight go back to the queue, journaled, for the next worker. `--processes N`
 * runs N such servers behind the one port (`ServeProcesses.ts`).
 */
export const serveCommand = Command.make(
  "serve",
  {
    host: Options.text("host").pipe(
      Options.withDefault("127.0.0.1"),
      Options.withDescription("address to listen on (default 127.0.0.1)")
    ),
    port: Options.integer("port").pipe(
      Options.withDefault(8080),
      Options.withDescription("port to listen on (default 8080)")
    ),
    noAuth: Options.boolean("no-auth").pipe(
      Options.withDescription("no API keys (development only: refused unless --host is 127.0.0.1 or localhost)")
    ),
    workers: boundedInteger("workers", 0, maxConcurrency).pipe(
      Options.withDefault(8),
      Options.withDescription(
        "questions this server's queue workers execute at once, for any run in the store (default 8; 0: this replica " +
          "only answers the API, `deepnote worker` processes or other replicas execute runs)"
      )
    ),
    corsOrigins: Options.text("cors-origin").pipe(
      Options.withDescription(
        "an origin browsers may call the API from (CORS; repeat it; `*` for any); default none, or " +
          "DEEPNOTE_SERVER_CORS_ORIGINS (comma-separated)"
      ),
      Options.repeated
    ),
    processes: boundedInteger("processes", 1, 256).pipe(
      Options.optional,
      Options.withDescription(
        "server processes behind the one port (node:cluster; the listening socket is shared, a process that dies is " +
          "replaced; SIGINT/SIGTERM drain them all); default 1 (an in-memory store: always 1); --workers and the " +
          "answer slots are per process"
      )
    ),
    home: homeOption,
    store: storeOption,
    knobs: knobOptions,
    configFile: configFileOption,
    llm: llmOptions,
    meili: meiliOptions
  },
  (opts) =>
    Effect.gen(function*() {
      const { config, file } = yield* resolveRunConfig({
        values: opts.knobs.values,
        roles: opts.knobs.roles,
        configFile: opts.configFile
      })
      // Meilisearch is offered to requests only when the operator named a server (a flag, meili.host, DEEPNOTE_MEILI_HOST)
      const meili = yield* resolveMeiliSettings(opts.meili, file?.meili, Option.getOrUndefined(opts.configFile))
      if (config.retriever === "meilisearch" && !meili.named) {
        return yield* new UsageError({
          message:
            "--retriever meilisearch needs a Meilisearch server: --meili-url, meili.host in the config file or DEEPNOTE_MEILI_HOST"
        })
      }
      const server = yield* homeServer({
        host: opts.host,
        port: opts.port,
        noAuth: opts.noAuth,
        workers: opts.workers,
        corsOrigins: opts.corsOrigins,
        home: opts.home,
        store: opts.store,
        defaults: config,
        llmSettings: llmSettingsLayer(opts.llm, file?.llm),
        meili: meili.named ? meili.options : undefined,
        processId: isServeProcess() ? process.pid : undefined
      })
      const processes = yield* processesFor(opts.processes, config.engine, opts.store, server.home)
      if (!isServeProcess()) yield* Effect.logInfo(`processes ${processes.value} (${processes.reason})`)
      if (processes.value > 1 && !isServeProcess()) {
        yield* checkListen(opts.host, opts.port).pipe(Effect.catchAll(server.failure))
        // opened (created, migrated, the key pepper made) and closed once here, so that the processes open a finished
        // store: a fresh SQLite file's header is only written back from its WAL when the last connection closes
        yield* Effect.scoped(Layer.build(serverStoreLayer(Option.getOrUndefined(opts.store)))).pipe(
          Effect.provide(Home.layer(server.home)),
          Effect.mapError((e) => new CommandFailed({ message: errorMessage(e) }))
        )
        const runtime = yield* Effect.runtime<never>()
        // the processes drain for up to the drain timeout; the rest is their shutdown
        return yield* superviseProcesses(
          processes.value,
          server.drainMs + 10_000,
          (pids) =>
            Runtime.runFork(runtime)(Effect.logInfo(`serving with ${pids.length} processes (pids ${pids.join(", ")})`)),
          (yield* StandardStreams).writeStderr
        )
      }
      if (opts.noAuth) yield* Effect.logWarning("API keys are off (--no-auth): every request acts as the local tenant")
      yield* Effect.logInfo(
        `home ${server.home} · engine ${config.engine} · profile ${config.profile}${
          meili.named ? ` · meilisearch index ${meili.options.index} at ${withoutCredentials(meili.options.host)}` : ""
        }`
      )
      // built, then serving until interrupted; one of several processes tells its supervisor it serves
      return yield* Layer.build(server.layer).pipe(
        Effect.zipRight(announceReady),
        Effect.zipRight(Effect.never),
        Effect.scoped,
        Effect.catchAll(server.failure)
      )
    })
).pipe(
  Command.withDescription(
    "Serve the HTTP API (ask, collections, runs, OpenAI-compatible chat completions) with API keys per tenant."
  )
)
