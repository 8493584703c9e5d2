import { Effect, Stream } from "effect"
import * as Fs from "node:fs"
import { CorpusFileNotFound } from "../Domain/Errors.js"

/** One line of a file: 1-based number and text (without the line break). */
export interface Line {
  readonly number: number
  readonly text: string
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

async function* batches(file: string, from: ReadFrom, size: number): AsyncGenerator<LineBatch> {
  const input = Fs.createReadStream(file, { start: from.offset, highWaterMark: 1 << 20 })
  let carry: Buffer | undefined
  let base = from.offset
  let line = from.line
  let lines: Array<Line> = []
  const decode = (buf: Buffer, start: number, end: number): string => {
    const stop = end > start && buf[end - 1] === 13 ? end - 1 : end
    const text = buf.toString("utf8", start, stop)
    return line === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  }
  for await (const chunk of input as AsyncIterable<Buffer>) {
    const buf: Buffer = carry === undefined ? chunk : Buffer.concat([carry, chunk])
    let pos = 0
    for (let nl = buf.indexOf(10, pos); nl >= 0; nl = buf.indexOf(10, pos)) {
      line++
      lines.push({ number: line, text: decode(buf, pos, nl) })
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
    lines.push({ number: line, text: decode(carry, 0, carry.length) })
    base += carry.length
  }
  if (lines.length > 0) yield { lines, endOffset: base, endLine: line }
}

/**
 * Streams a file as batches of lines with exact byte offsets (so ingestion can resume mid-file).
 * Memory is bounded by the batch size and the longest line, never by the file size.
 */
export const readLineBatches = (
  file: string,
  from: ReadFrom,
  size: number
): Stream.Stream<LineBatch, CorpusFileNotFound> =>
  Stream.fromAsyncIterable(batches(file, from, size), () => new CorpusFileNotFound({ file }))

/** Size and modification time of a file, or `CorpusFileNotFound`. */
export const statFile = (
  file: string
): Effect.Effect<{ readonly size: number; readonly mtimeMs: number }, CorpusFileNotFound> =>
  Effect.tryPromise({
    try: () => Fs.promises.stat(file),
    catch: () => new CorpusFileNotFound({ file })
  }).pipe(
    Effect.filterOrFail((s) => s.isFile(), () => new CorpusFileNotFound({ file })),
    Effect.map((s) => ({ size: s.size, mtimeMs: Math.floor(s.mtimeMs) }))
  )
