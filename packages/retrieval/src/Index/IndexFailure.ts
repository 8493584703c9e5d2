import { errorCode, errorMessage, firstDecodeIssue, isSqliteCorruptionCode } from "@deepnote-rag/core"
import { ParseResult, Predicate } from "effect"
import { IndexError } from "../Domain/Errors.js"

/** The SQLite error behind a failure (`SqlError.cause`, or the failure itself when SQLite threw directly). */
const sqliteCause = (failure: unknown): unknown =>
  Predicate.isTagged(failure, "SqlError") && Predicate.hasProperty(failure, "cause") ? failure.cause : failure

/** SQLite found a damaged page or a file that is not a database (`SQLITE_CORRUPT*`, `SQLITE_NOTADB`). */
export const isCorruption = (failure: unknown): boolean => isSqliteCorruptionCode(errorCode(sqliteCause(failure)))

/** The one-line refusal of a damaged collection file. */
export const corrupted = (file: string, detail: string): IndexError =>
  new IndexError({
    file,
    reason: `the collection file is corrupted (${detail}); restore it from a backup, or drop the collection and ` +
      "index it again"
  })

/**
 * Turns a failure of `operation` (an `SqlError`, a row that does not decode, a defect thrown by the driver) into an
 * `IndexError` naming the file; SQLite's corruption codes become the corrupted-file refusal.
 */
export const indexFailure = (file: string, operation: string) => (failure: unknown): IndexError => {
  if (failure instanceof IndexError) return failure
  if (ParseResult.isParseError(failure)) {
    return corrupted(
      file,
      `${operation}: a stored row does not decode: ${firstDecodeIssue(failure, "row")}`
    )
  }
  const cause = sqliteCause(failure)
  if (isCorruption(failure)) return corrupted(file, `${operation}: ${errorMessage(cause)}`)
  return new IndexError({ file, reason: `${operation} failed: ${errorMessage(cause)}`, cause: failure })
}
