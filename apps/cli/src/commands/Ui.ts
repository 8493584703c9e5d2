import { defaultRunConfig } from "@deepnote-rag/core"
import { Args, Command, Options } from "@effect/cli"
import { HttpServer } from "@effect/platform"
import { Console, Effect, Logger, LogLevel, Option } from "effect"
import { llmSettingsLayer } from "../engine/LlmOptions.js"
import { homeOption } from "./Common.js"
import { homeServer } from "./Serve.js"

const runId = Args.text({ name: "RUN_ID" }).pipe(
  Args.withDescription("a run to open (default: the list of runs)"),
  Args.optional
)

/**
 * `deepnote ui [RUN_ID]`: the run inspector over the home, as `deepnote serve --no-auth` serves it on 127.0.0.1, with
 * no queue workers (looking at runs never executes one). Prints the address (the run's page when given) and serves
 * until interrupted; of the server's own log, only warnings and errors.
 */
export const uiCommand = Command.make(
  "ui",
  {
    runId,
    home: homeOption,
    port: Options.integer("port").pipe(
      Options.withDefault(0),
      Options.withDescription("port to listen on (default 0: any free port)")
    )
  },
  (opts) =>
    Effect.gen(function*() {
      const server = yield* homeServer({
        host: "127.0.0.1",
        port: opts.port,
        noAuth: true,
        workers: 0,
        corsOrigins: [],
        home: opts.home,
        store: Option.none(),
        defaults: defaultRunConfig,
        llmSettings: llmSettingsLayer({ urls: [], apiKey: Option.none(), noCache: false }, undefined)
      })
      const open = Effect.gen(function*() {
        const { address } = yield* HttpServer.HttpServer
        const port = address._tag === "TcpAddress" ? address.port : opts.port
        const page = Option.match(opts.runId, {
          onNone: () => "#/runs",
          onSome: (id) => `#/runs/${encodeURIComponent(id)}`
        })
        yield* Console.log(`run inspector: http://127.0.0.1:${port}/ui/${page} (home ${server.home}; Ctrl-C stops it)`)
        return yield* Effect.never
      })
      // the server's start-up and shutdown lines (listening, answer slots, draining) say nothing to someone looking at
      // runs: the address above is the output; warnings and errors are still written
      return yield* open.pipe(
        Effect.provide(server.layer),
        Effect.catchAll(server.failure),
        Logger.withMinimumLogLevel(LogLevel.Warning)
      )
    })
).pipe(
  Command.withDescription(
    "Open the run inspector: serve the home's runs on 127.0.0.1 (no API keys) and print the address of the pages."
  )
)
