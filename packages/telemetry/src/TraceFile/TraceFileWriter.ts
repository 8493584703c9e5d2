import { counted } from "@deepnote-rag/core"
import { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Duration, Effect, Layer, Schedule } from "effect"
import * as Path from "node:path"
import { quietTracer, traceInternalsConfig } from "../Filter/QuietTracer.js"
import { recordingTracer } from "./RecordingTracer.js"
import { encodeSpanLine } from "./SpanRecord.js"

export interface TraceFileOptions {
  /** How often buffered span lines are appended to the file. Default 250 ms; the rest is written when the layer closes. */
  readonly flushInterval?: Duration.DurationInput
  /** Span lines held while writes fail; beyond it spans are counted as dropped and reported when the layer closes. */
  readonly maxBufferedSpans?: number
}

/**
 * Records every span that ends while the layer is open as one JSON line (`SpanRecord`) appended to `path`, on top of
 * the tracer already in place (spans still go to OTLP when that is on). Lines are buffered and appended every
 * `flushInterval`, and once more when the layer's scope closes — on normal exit, on failure and on SIGINT (the
 * runtime interrupts the main fiber, so finalizers run).
 */
export const traceFileLayer = (
  path: string,
  options: TraceFileOptions = {}
): Layer.Layer<never, PlatformError, FileSystem.FileSystem> =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    yield* fs.makeDirectory(Path.dirname(Path.resolve(path)), { recursive: true })
    const file = yield* fs.open(path, { flag: "a" })
    const encoder = new TextEncoder()
    const maxBuffered = options.maxBufferedSpans ?? 100_000
    let buffer: Array<string> = []
    let dropped = 0
    // Lines leave the buffer only once they are written: a failed write keeps them for the next flush, and is logged.
    // A write and the removal of its lines are one uninterruptible step: the periodic flush interrupted mid-write when
    // the scope closes (the OS write goes on) used to leave its lines in the buffer, and the closing flush wrote them
    // a second time (seen in CI: 5 of 27 spans twice in an `ask --trace-file`).
    const flush = Effect.uninterruptible(Effect.suspend(() => {
      if (buffer.length === 0) return Effect.void
      const count = buffer.length
      return file.writeAll(encoder.encode(buffer.slice(0, count).join(""))).pipe(
        Effect.tap(() => Effect.sync(() => void (buffer = buffer.slice(count))))
      )
    }))
    const reportFailure = (when: string) => (error: PlatformError) =>
      Effect.logWarning(
        `trace file ${path}: ${when} failed (${counted(buffer.length, "span")} kept for the next try): ${error.message}`
      )
    yield* Effect.addFinalizer(() =>
      flush.pipe(
        Effect.catchAll((error) =>
          Effect.logError(
            `trace file ${path}: ${counted(buffer.length, "span")} could not be written: ${error.message}`
          )
        ),
        Effect.zipRight(
          Effect.suspend(() =>
            dropped > 0
              ? Effect.logError(`trace file ${path}: ${counted(dropped, "span")} dropped while writes were failing`)
              : Effect.void
          )
        )
      )
    )
    yield* flush.pipe(
      Effect.catchAll(reportFailure("a periodic write")),
      Effect.repeat(Schedule.spaced(options.flushInterval ?? Duration.millis(250))),
      Effect.forkScoped
    )
    const inner = yield* Effect.tracer
    const recording = recordingTracer(inner, (record) => {
      if (buffer.length >= maxBuffered) dropped++
      else buffer.push(`${encodeSpanLine(record)}\n`)
    })
    const internals = yield* traceInternalsConfig.pipe(Effect.orElseSucceed(() => false))
    return Layer.setTracer(internals ? recording : quietTracer(recording))
  }))
