import { writeLinesAtomically } from "@deepnote-rag/align"
import { causeCode, counted, errorMessage } from "@deepnote-rag/core"
import { exportRun } from "@deepnote-rag/runs"
import { Command, Options } from "@effect/cli"
import { Console, Effect, Option, Stream } from "effect"
import { CommandFailed, UsageError } from "../Errors.js"
import { StandardStreams } from "../render/StandardStreams.js"
import { leanHeap } from "../runs/LeanHeap.js"
import { runServices, storeFailures } from "../runs/RunServices.js"
import { homeOption, storeOption } from "./Common.js"
import { outputFileOf } from "./OutputFile.js"
import { runIdArg } from "./Resume.js"

/**
 * Writes the lines to a file atomically (`writeLinesAtomically`: a failed or interrupted export never leaves a truncated
 * file; memory does not grow with the run), once the target's directory is known to exist.
 */
const writeLinesTo = (path: string, lines: Stream.Stream<string, unknown>) =>
  Effect.gen(function*() {
    yield* outputFileOf("output", path)
    return yield* writeLinesAtomically(path, lines).pipe(
      Effect.mapError((error) =>
        error instanceof UsageError || error instanceof CommandFailed
          ? error
          : new CommandFailed({ message: `cannot write ${path}: ${errorMessage(error)}` })
      )
    )
  })

const isBrokenPipe = (error: unknown): boolean => causeCode(error, (code) => code === "EPIPE") !== undefined

/** `deepnote export RUN_ID`: JSONL, one question per line with its answer, best note and trace. */
export const exportCommand = Command.make(
  "export",
  {
    runId: runIdArg,
    output: Options.file("output", { exists: "either" }).pipe(
      Options.withAlias("o"),
      Options.optional,
      Options.withDescription("write to FILE instead of stdout (written atomically: complete or not at all)")
    ),
    home: homeOption,
    store: storeOption
  },
  (opts) =>
    Effect.gen(function*() {
      yield* leanHeap
      const lines = yield* exportRun(opts.runId)
      if (Option.isNone(opts.output)) {
        let written = 0
        // the process's stdout sink (NodeSink.stdout) waits for "drain" when the pipe is full: the reader's pace
        const stdout = (yield* StandardStreams).stdoutSink
        return yield* Stream.run(lines.pipe(Stream.map((line) => (written++, `${line}\n`))), stdout).pipe(
          // the reader went away (`deepnote export … | head`): stop with one line, no stack trace, status 0
          Effect.catchIf(isBrokenPipe, () =>
            Console.error(
              `export stopped: stdout was closed by its reader (${counted(written, "line")} written)`
            )),
          Effect.mapError((error) => new CommandFailed({ message: `cannot write to stdout: ${errorMessage(error)}` }))
        )
      }
      const count = yield* writeLinesTo(opts.output.value, lines)
      yield* Console.error(`wrote ${count} lines to ${opts.output.value}`)
    }).pipe(
      Effect.catchTags(storeFailures),
      Effect.provide(runServices(opts.home, opts.store))
    )
).pipe(
  Command.withDescription(
    "Export a run as JSONL: one question per line with its status, answer, best note and full trace."
  )
)
