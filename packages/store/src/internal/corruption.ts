import { errorCode, errorMessage, isSqliteCorruptionCode } from "@deepnote-rag/core"
import Sqlite from "better-sqlite3"
import { Effect, Option, Predicate } from "effect"
import * as Fs from "node:fs"
import { StoreError } from "../Domain/Errors.js"

/** An error's message, first line only. */
export const firstLine = (cause: unknown): string => errorMessage(cause).split("\n")[0]!

/**
 * The cheap corruption check run on every open: the header's page size, and its page count against the file's size
 * (a truncated file), when the count is current and no write-ahead log holds newer pages. Measured on a 99 MB store
 * on this project's 2-core machine (`packages/store/benchmarks/quick-check.mjs`): this check with the schema probe
 * takes 1–2 ms; a full `PRAGMA quick_check` takes 65–80 ms from the page cache but 1.5–1.7 s from disk, more than the
 * ~1 s we allow on open, so quick_check runs after the first failed statement that suggests damage (`quickCheck`).
 */
export const headerDamage = (filename: string, header: Buffer, size: number): string | undefined => {
  const raw = header.readUInt16BE(16)
  const pageSize = raw === 1 ? 65536 : raw
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) return `invalid page size ${raw} in the header`
  const current = header.readUInt32BE(92) === header.readUInt32BE(24)
  const pages = header.readUInt32BE(28)
  const wal = `${filename}-wal`
  const walPending = Fs.existsSync(wal) && Fs.statSync(wal).size > 0
  if (current && !walPending && pages * pageSize > size) {
    return `truncated: the header counts ${pages} pages of ${pageSize} bytes, the file has ${size} bytes`
  }
  return undefined
}

export const corrupted = (filename: string, finding: string, cause?: unknown) =>
  new StoreError({
    message: `${filename} is corrupted (${finding}); it was left untouched: restore it from a backup`,
    cause
  })

/**
 * `PRAGMA quick_check` through a read-only connection: `None` when the file is sound, else its first finding. Run
 * after the first failed statement that suggests damage (see `headerDamage` for why not on every open). A check that
 * cannot run (the file busy, gone, unreadable) is no finding — only SQLite saying the file is damaged is: another
 * process's checkpoint must not make a sound store read as corrupted.
 */
export const quickCheck = (filename: string): Effect.Effect<Option.Option<string>> =>
  Effect.sync(() => {
    try {
      const db = new Sqlite(filename, { readonly: true, fileMustExist: true })
      try {
        const finding = String(db.prepare("PRAGMA quick_check(1)").pluck().get())
        if (finding === "ok") return Option.none()
        const lines = finding.split("\n")
        return Option.some(lines.find((line) => !line.startsWith("*** in database")) ?? lines[0]!)
      } finally {
        db.close()
      }
    } catch (cause) {
      return isSqliteCorruptionCode(errorCode(cause)) ? Option.some(firstLine(cause)) : Option.none()
    }
  })

/** SQLite result codes that mean the file may be damaged (not busy, full, read-only or a constraint). */
const damageCodes = /^SQLITE_(CORRUPT|NOTADB|IOERR)/u

/**
 * The store's diagnosis of a failed statement: when SQLite reports possible damage, the first time, run
 * `quick_check`; when it finds damage, the error names the file as corrupted.
 */
export const corruptionDiagnosis = (filename: string) =>
  Effect.map(Effect.cached(quickCheck(filename)), (check) => (error: StoreError): Effect.Effect<StoreError> => {
    const sqlite = Predicate.hasProperty(error.cause, "cause") ? errorCode(error.cause.cause) : undefined
    if (sqlite === undefined || !damageCodes.test(sqlite)) return Effect.succeed(error)
    return Effect.map(
      check,
      Option.match({
        onNone: () => error,
        onSome: (finding) =>
          new StoreError({
            message: `${filename} is corrupted (quick_check: ${finding}): ${error.message}; restore it from a backup`,
            cause: error
          })
      })
    )
  })
