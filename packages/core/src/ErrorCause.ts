import { Predicate } from "effect"

/**
 * Reading what a caught error says about its cause — the system's or SQLite's `code`, the message — without knowing its
 * class: errors come from Node (`ENOENT`, `EPIPE`, `ECONNREFUSED` …), better-sqlite3 (`SQLITE_CORRUPT` …), undici and
 * Effect's wrappers (`SqlError`, `RequestError`, `SystemError`), each with the interesting error somewhere along its
 * chain of `cause`s.
 */

/** How many `cause` links below an error are followed (chains are short; a cycle must not loop). */
const maxDepth = 5

/** The `code` an error carries itself, when it is a string. */
export const errorCode = (error: unknown): string | undefined =>
  Predicate.hasProperty(error, "code") && typeof error.code === "string" ? error.code : undefined

/** The first code along an error's chain of causes (its own first) that `accept` takes. */
export const causeCode = (error: unknown, accept: (code: string) => boolean = () => true): string | undefined => {
  let current = error
  for (let depth = 0; depth <= maxDepth && Predicate.isObject(current); depth++) {
    const code = errorCode(current)
    if (code !== undefined && accept(code)) return code
    if (!Predicate.hasProperty(current, "cause")) return undefined
    current = current.cause
  }
  return undefined
}

/** The innermost error of a chain of causes (`SqlError` → SQLite's error): the one with the useful message and code. */
export const innermostCause = (error: unknown): unknown => {
  let current = error
  for (
    let depth = 0;
    depth < maxDepth && Predicate.hasProperty(current, "cause") && current.cause !== undefined;
    depth++
  ) {
    current = current.cause
  }
  return current
}

/** An error's message when it carries one (not empty), else its text. */
export const errorMessage = (error: unknown): string =>
  Predicate.hasProperty(error, "message") && typeof error.message === "string" && error.message !== ""
    ? error.message
    : String(error)

/** A SQLite result code that says the file is damaged or is not a database (`SQLITE_CORRUPT*`, `SQLITE_NOTADB`). */
export const isSqliteCorruptionCode = (code: string | undefined): boolean =>
  code !== undefined && (code.startsWith("SQLITE_CORRUPT") || code.startsWith("SQLITE_NOTADB"))
