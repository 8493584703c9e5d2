import { exportRun } from "@deepnote/runs"
import { Command, Options } from "@effect/cli"
import { Console, Effect, Option, Stream } from "effect"
import { createWriteStream } from "node:fs"
import { CommandFailed } from "../Errors.js"
import { runServices } from "../runs/RunServices.js"
import { homeOption } from "./Common.js"
import { runIdArg } from "./Resume.js"

/** `deepnote export RUN_ID`: JSONL, one question per line with its answer, best note and trace. */
export const exportCommand = Command.make(
  "export",
  {
    runId: runIdArg,
    output: Options.file("output", { exists: "either" }).pipe(
      Options.withAlias("o"),
      Options.optional,
      Options.withDescription("write to FILE instead of stdout")
    ),
    home: homeOption
  },
  (opts) =>
    Effect.gen(function*() {
      const lines = yield* exportRun(opts.runId)
      if (Option.isNone(opts.output)) return yield* Stream.runForEach(lines, (line) => Console.log(line))
      const path = opts.output.value
      const count = yield* Effect.acquireUseRelease(
        Effect.sync(() => createWriteStream(path)),
        (out) => Stream.runFold(lines, 0, (n, line) => (out.write(`${line}\n`), n + 1)),
        (out) => Effect.async<void>((resume) => void out.end(() => resume(Effect.void)))
      )
      yield* Console.error(`wrote ${count} lines to ${path}`)
    }).pipe(
      Effect.catchTags({
        RunNotFound: (e) => new CommandFailed({ message: `unknown run id "${e.runId}"` }),
        StoreError: (e) => new CommandFailed({ message: e.message })
      }),
      Effect.provide(runServices(opts.home))
    )
).pipe(
  Command.withDescription(
    "Export a run as JSONL: one question per line with its status, answer, best note and full trace."
  )
)
