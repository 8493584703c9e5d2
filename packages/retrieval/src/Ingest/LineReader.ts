import { errorCode } from "@deepnote-rag/core"
import { Effect, Stream } from "effect"
import { isUtf8 } from "node:buffer"
import * as Fs from "node:fs"
import { CorpusFileNotFound, InvalidCorpusFile } from "../Domain/Errors.js"

/** One line of a file: 1-based number and text (without the line break). */
export interface Line {
  readonly number: number
  readonly text: string
  /** The raw line has NUL bytes or is not valid UTF-8 (`text` then holds replacement characters). */
  readonly binary: boolean
}

/** A run of consecutive lines and the byte offset just past the last one (where a resumed read starts). */
export interface LineBatch {
  readonly lines: ReadonlyArray<Line>
  readonly endOffset: number
  readonly endLine: number
}

export interface ReadFrom {
  /** Byte offset to start at; must be the start of a line. */
  readonly offset: number
  /** Number of lines before `offset`. */
  readonly line: number
}

/** NUL bytes or invalid UTF-8. Only called on whole lines: a line break never splits a UTF-8 sequence. */
export const isBinary = (bytes: Uint8Array): boolean => bytes.includes(0) || !isUtf8(bytes)

async function* batches(file: string, from: ReadFrom, size: number): AsyncGenerator<LineBatch> {
  const input = Fs.createReadStream(file, { start: from.offset, highWaterMark: 1 << 20 })
  let carry: Buffer | undefined
  let base = from.offset
  let line = from.line
  let lines: Array<Line> = []
  const decode = (buf: Buffer, start: number, end: number, checkBinary: boolean): Line => {
    const stop = end > start && buf[end - 1] === 13 ? end - 1 : end
    const raw = buf.toString("utf8", start, stop)
    const text = line === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw
    return { number: line, text, binary: checkBinary && isBinary(buf.subarray(start, stop)) }
  }
  for await (const chunk of input as AsyncIterable<Buffer>) {
    const buf: Buffer = carry === undefined ? chunk : Buffer.concat([carry, chunk])
    const complete = buf.lastIndexOf(10) + 1
    // one vectorised check of the chunk's whole lines; lines are checked one by one only when it fails
    const suspect = complete > 0 && isBinary(buf.subarray(0, complete))
    let pos = 0
    for (let nl = buf.indexOf(10, pos); nl >= 0; nl = buf.indexOf(10, pos)) {
      line++
      lines.push(decode(buf, pos, nl, suspect))
      pos = nl + 1
      if (lines.length >= size) {
        yield { lines, endOffset: base + pos, endLine: line }
        lines = []
      }
    }
    base += pos
    carry = pos < buf.length ? buf.subarray(pos) : undefined
  }
  if (carry !== undefined) {
    line++
    lines.push(decode(carry, 0, carry.length, true))
    base += carry.length
  }
  if (lines.length > 0) yield { lines, endOffset: base, endLine: line }
}

/** A file-system failure on a corpus path: not found, a directory, or unreadable (with the system's code). */
export const corpusFileError = (file: string, cause: unknown): CorpusFileNotFound | InvalidCorpusFile => {
  const code = errorCode(cause)
  if (code === "ENOENT" || code === "ENOTDIR") return new CorpusFileNotFound({ file })
  if (code === "EISDIR") return new InvalidCorpusFile({ file, problem: "directory" })
  const detail = code === "EACCES" || code === "EPERM" ? "permission denied" : code ?? String(cause)
  return new InvalidCorpusFile({ file, problem: "unreadable", detail })
}

/**
 * Streams a file as batches of lines with exact byte offsets (so ingestion can resume mid-file).
 * Memory is bounded by the batch size and the longest line, never by the file size.
 */
export const readLineBatches = (
  file: string,
  from: ReadFrom,
  size: number
): Stream.Stream<LineBatch, CorpusFileNotFound | InvalidCorpusFile> =>
  Stream.fromAsyncIterable(batches(file, from, size), (cause) => corpusFileError(file, cause))

/** Size and modification time of a regular file (a directory or a missing path is a typed error). */
export const statFile = (
  file: string
): Effect.Effect<{ readonly size: number; readonly mtimeMs: number }, CorpusFileNotFound | InvalidCorpusFile> =>
  Effect.tryPromise({
    try: () => Fs.promises.stat(file),
    catch: (cause) => corpusFileError(file, cause)
  }).pipe(
    Effect.filterOrFail(
      (s) => s.isFile(),
      (s) => new InvalidCorpusFile({ file, problem: s.isDirectory() ? "directory" : "not-regular" })
    ),
    Effect.map((s) => ({ size: s.size, mtimeMs: Math.floor(s.mtimeMs) }))
  )
