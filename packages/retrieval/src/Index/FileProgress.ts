import { Clock, Effect } from "effect"
import type { ProgressRow } from "./FtsQueries.js"

/** Where ingestion of one file stopped. */
export interface FileProgress {
  readonly file: string
  readonly size: number
  readonly mtimeMs: number
  readonly offset: number
  readonly line: number
  readonly done: boolean
}

/** A progress row as read back. */
export const fileProgressOf = (row: typeof ProgressRow.Type): FileProgress => ({
  file: row.file,
  size: row.size,
  mtimeMs: row.mtime_ms,
  offset: row.byte_offset,
  line: row.line,
  done: row.done === 1
})

/** The row that records `p`, stamped with the time it is written. */
export const progressRowOf = (p: FileProgress): Effect.Effect<typeof ProgressRow.Type> =>
  Effect.map(Clock.currentTimeMillis, (ms): typeof ProgressRow.Type => ({
    file: p.file,
    size: p.size,
    mtime_ms: p.mtimeMs,
    byte_offset: p.offset,
    line: p.line,
    done: p.done ? 1 : 0,
    updated_at: new Date(ms).toISOString()
  }))
