import { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Effect, Stream } from "effect"
import * as Path from "node:path"

/**
 * Writes lines to a file atomically: into a temporary file beside it, renamed over the target once complete (an
 * interrupted write never leaves a truncated file). The stream is pulled at the file's pace (a sink with
 * back-pressure), so memory does not grow with the data. Returns the lines written.
 */
export const writeLinesAtomically = <E, R>(
  path: string,
  lines: Stream.Stream<string, E, R>
): Effect.Effect<number, E | PlatformError, FileSystem.FileSystem | R> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const temporary = Path.join(Path.dirname(Path.resolve(path)), `.${Path.basename(path)}.${process.pid}.tmp`)
    let count = 0
    const bytes = lines.pipe(
      Stream.map((line) => (count++, `${line}\n`)),
      Stream.encodeText
    )
    yield* Stream.run(bytes, fs.sink(temporary)).pipe(
      Effect.zipRight(fs.rename(temporary, path)),
      Effect.onError(() => fs.remove(temporary).pipe(Effect.ignore))
    )
    return count
  })

/** Writes a whole text file atomically (temporary file, then rename). */
export const writeFileAtomically = (path: string, text: string) =>
  writeLinesAtomically(path, Stream.make(text.replace(/\n$/u, ""))).pipe(Effect.asVoid)
