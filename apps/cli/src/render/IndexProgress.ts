import type { IngestProgress } from "@deepnote-rag/retrieval"
import { Clock, Effect } from "effect"
import * as Path from "node:path"

const barWidth = 24

const duration = (seconds: number): string =>
  !Number.isFinite(seconds)
    ? "?"
    : seconds < 60
    ? `${Math.ceil(seconds)}s`
    : seconds < 3600
    ? `${Math.floor(seconds / 60)}m${String(Math.ceil(seconds % 60)).padStart(2, "0")}s`
    : `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, "0")}m`

/** What one progress report says: rows read so far, rows per second, the file's share read and its ETA. */
export const describeProgress = (p: IngestProgress, elapsedMs: number) => {
  const rows = p.added + p.skipped + p.invalid
  const seconds = Math.max(elapsedMs, 1) / 1000
  const share = p.fileBytes > 0 ? Math.min(1, p.bytesRead / p.fileBytes) : 1
  const eta = share > 0 ? (seconds * (1 - share)) / share : Number.POSITIVE_INFINITY
  const text = `[${p.fileIndex}/${p.files}] ${Path.basename(p.file)}: ${Math.round(100 * share)}% · ` +
    `${rows.toLocaleString("en-US")} rows (${p.added} added, ${p.skipped} skipped, ${p.invalid} invalid) · ` +
    `${Math.round(rows / seconds).toLocaleString("en-US")} rows/s · ETA ${share >= 1 ? "0s" : duration(eta)}`
  return { share, text }
}

/**
 * Reports an index's progress on stderr: a live bar redrawn in place on a terminal; elsewhere (CI logs, pipes) one
 * line every `intervalMs` and one as each file ends, so a long index is never silent. Rates and ETAs are per file
 * (its own rows and bytes since it started).
 */
export const indexProgress = (options: {
  readonly tty: boolean
  readonly intervalMs: number
  readonly write: (text: string) => void
}) =>
  Effect.map(Clock.currentTimeMillis, (started) => {
    let fileIndex = 1
    // a file starts when the previous one's last batch was reported (the first when reporting starts)
    let fileStart = started
    let lastReport = started
    let lastLine = Number.NEGATIVE_INFINITY
    const report = (p: IngestProgress) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        if (p.fileIndex !== fileIndex) {
          fileIndex = p.fileIndex
          fileStart = lastReport
        }
        lastReport = now
        const { share, text } = describeProgress(p, now - fileStart)
        if (options.tty) {
          const filled = Math.round(share * barWidth)
          options.write(`\r\x1b[2K${"█".repeat(filled)}${"░".repeat(barWidth - filled)} ${text}`)
        } else if (share >= 1 || now - lastLine >= options.intervalMs) {
          lastLine = now
          options.write(`index ${text}\n`)
        }
      })
    /** Clears the live bar (a terminal) before the summary is printed. */
    const done = Effect.sync(() => {
      if (options.tty) options.write("\r\x1b[2K")
    })
    return { report, done }
  })
