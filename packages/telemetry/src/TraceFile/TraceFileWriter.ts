import { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Duration, Effect, Layer, Schedule } from "effect"
import * as Path from "node:path"
import { recordingTracer } from "./RecordingTracer.js"
import { encodeSpanLine } from "./SpanRecord.js"

export interface TraceFileOptions {
  /** How often buffered span lines are appended to the file. Default 250 ms; the rest is written when the layer closes. */
  readonly flushInterval?: Duration.DurationInput
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
    let buffer: Array<string> = []
    const flush = Effect.suspend(() => {
      if (buffer.length === 0) return Effect.void
      const chunk = buffer.join("")
      buffer = []
      return file.writeAll(encoder.encode(chunk))
    })
    yield* Effect.addFinalizer(() => Effect.ignore(flush))
    yield* flush.pipe(
      Effect.ignore,
      Effect.repeat(Schedule.spaced(options.flushInterval ?? Duration.millis(250))),
      Effect.forkScoped
    )
    const inner = yield* Effect.tracer
    return Layer.setTracer(recordingTracer(inner, (record) => void buffer.push(`${encodeSpanLine(record)}\n`)))
  }))
