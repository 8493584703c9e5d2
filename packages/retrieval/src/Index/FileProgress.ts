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

/** The row that records `p`, written at `updatedAt` (an ISO time). */
export const progressRowOf = (p: FileProgress, updatedAt: string): typeof ProgressRow.Type => ({
  file: p.file,
  size: p.size,
  mtime_ms: p.mtimeMs,
  byte_offset: p.offset,
  line: p.line,
  done: p.done ? 1 : 0,
  updated_at: updatedAt
})
