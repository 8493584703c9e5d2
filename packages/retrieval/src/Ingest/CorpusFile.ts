import { Effect } from "effect"
import * as Fs from "node:fs"
import type { CorpusFileNotFound } from "../Domain/Errors.js"
import { InvalidCorpusFile } from "../Domain/Errors.js"
import { corpusFileError, isBinary, statFile } from "./LineReader.js"

/** How much of a file is read to tell text from binary (as `git` and `file` do, the start decides). */
const sniffBytes = 64 * 1024

/** Where the last (possibly cut) UTF-8 character of a full window starts: the window is checked up to there. */
const lastBoundary = (bytes: Uint8Array): number => {
  let end = bytes.length
  while (end > 0 && (bytes[end - 1]! & 0xc0) === 0x80) end--
  return end > 0 ? end - 1 : 0
}

const readStart = (file: string) =>
  Effect.acquireUseRelease(
    Effect.tryPromise({ try: () => Fs.promises.open(file, "r"), catch: (cause) => corpusFileError(file, cause) }),
    (handle) =>
      Effect.tryPromise({
        try: () => handle.read(Buffer.alloc(sniffBytes), 0, sniffBytes, 0),
        catch: (cause) => corpusFileError(file, cause)
      }),
    (handle) => Effect.promise(() => handle.close())
  )

/**
 * Checks a corpus path before anything is written: it must be a regular file whose start has no NUL byte and, for
 * `text` (plain text and markdown, where every byte becomes passage text), is valid UTF-8. So a binary file named
 * `.txt` is refused instead of being indexed as garbage passages; in JSON lines a line that is not UTF-8 is only an
 * invalid record. Returns the file's size and modification time (the resume key).
 */
export const checkCorpusFile = (
  file: string,
  kind: "text" | "json"
): Effect.Effect<{ readonly size: number; readonly mtimeMs: number }, CorpusFileNotFound | InvalidCorpusFile> =>
  Effect.gen(function*() {
    const stat = yield* statFile(file)
    const { buffer, bytesRead } = yield* readStart(file)
    const start = buffer.subarray(0, bytesRead)
    const checked = bytesRead === sniffBytes ? start.subarray(0, lastBoundary(start)) : start
    const nul = checked.indexOf(0)
    if (nul >= 0) return yield* new InvalidCorpusFile({ file, problem: "binary", detail: `NUL byte at offset ${nul}` })
    if (kind === "text" && isBinary(checked)) {
      return yield* new InvalidCorpusFile({ file, problem: "binary", detail: "invalid UTF-8 in the first 64 KiB" })
    }
    return stat
  })
