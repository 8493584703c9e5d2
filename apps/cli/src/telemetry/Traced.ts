import { Home } from "@deepnote-rag/core"
import { traceContentLayer, traceFileLayer } from "@deepnote-rag/telemetry"
import { defaultTraceFile, linkTraceFile } from "@deepnote-rag/telemetry"
import type { FileSystem } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { CommandFailed } from "../Errors.js"
import type { TraceFlags } from "./TraceOptions.js"

const toFile = (path: string) =>
  traceFileLayer(path).pipe(
    Layer.mapError((e) => new CommandFailed({ message: `cannot write the trace file ${path}: ${e.message}` }))
  )

const withFiles =
  (files: ReadonlyArray<string>, content: boolean) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | CommandFailed, R | FileSystem.FileSystem> => {
    const layers = files.map(toFile)
    const traced = layers.reduce<Effect.Effect<A, E | CommandFailed, R | FileSystem.FileSystem>>(
      (effect, layer) => Effect.provide(effect, layer),
      self
    )
    return content ? Effect.provide(traced, traceContentLayer(true)) : traced
  }

/** `ask`: spans of the question to `--trace-file`, prompts and completions with `--trace-content`. */
export const tracedAsk = (flags: TraceFlags) => withFiles(Option.toArray(flags.file), flags.content)

/**
 * `run` / `resume`: spans of one execution to `<home>/traces/<run-id>.jsonl` (`--trace`) and/or `--trace-file`, which
 * is then listed for the run so `deepnote trace RUN_ID` finds it.
 */
export const tracedRun = (flags: TraceFlags, runId: string) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const home = yield* Home
    const files = [...(flags.trace === true ? [defaultTraceFile(home, runId)] : []), ...Option.toArray(flags.file)]
    for (const file of Option.toArray(flags.file)) {
      yield* linkTraceFile(home, runId, file).pipe(
        Effect.mapError((e) =>
          new CommandFailed({ message: `cannot record the trace file of run ${runId}: ${e.message}` })
        )
      )
    }
    return yield* withFiles(files, flags.content)(self)
  })
