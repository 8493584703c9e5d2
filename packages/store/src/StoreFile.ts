import { errorCode, isSqliteCorruptionCode } from "@deepnote-rag/core"
import Sqlite from "better-sqlite3"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { StoreError } from "./Domain/Errors.js"
import { corrupted, firstLine, headerDamage } from "./internal/corruption.js"
import { mayOpen, newerStore } from "./internal/readers.js"
import { applicationId, migrationsTable, schemaVersion } from "./Migrations.js"
import { readersTable } from "./Migrations/V14Readers.js"

/** What a store file turned out to be. `readOnly`: the process cannot write the file, so it is opened read-only. */
export type StoreFileState =
  | { readonly _tag: "Memory" }
  | { readonly _tag: "Fresh" }
  | { readonly _tag: "Store"; readonly version: number; readonly readOnly: boolean }

const magic = "SQLite format 3\u0000"

const notAStore = (filename: string, why: string, cause?: unknown) =>
  new StoreError({ message: `${filename} is not a DeepNote store (${why})`, cause })

/** The first 100 bytes: the magic string, `user_version` at offset 60 and `application_id` at 68 (big-endian). */
const readHeader = (filename: string): Buffer => {
  const fd = Fs.openSync(filename, "r")
  try {
    const header = Buffer.alloc(100)
    const read = Fs.readSync(fd, header, 0, 100, 0)
    return header.subarray(0, read)
  } finally {
    Fs.closeSync(fd)
  }
}

/**
 * Whether this process may write the file, asked by opening it for writing (nothing is written). `access(2)` would
 * answer for the real user id; opening answers for the effective one, as SQLite will.
 */
const writable = (filename: string): boolean => {
  try {
    Fs.closeSync(Fs.openSync(filename, "r+"))
    return true
  } catch (cause) {
    if (["EACCES", "EPERM", "EROFS"].includes(errorCode(cause) ?? "")) return false
    throw cause
  }
}

interface Probe {
  readonly tables: ReadonlyArray<string>
  /** The newest migration recorded in the migrations table, 0 when none. */
  readonly latestMigration: number
  /**
   * The lowest schema version a build must know to open the store (`deepnote_readers`), when the store records it;
   * read only for a store newer than this build (its header's `userVersion` or its migrations).
   */
  readonly oldestSchema: number | undefined
}

/** Reads table names and the migrations table through a read-only connection: never writes to the database file. */
const probe = (filename: string, userVersion: number): Probe => {
  const db = new Sqlite(filename, { readonly: true, fileMustExist: true })
  try {
    const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all()
    const tables = names.filter((name): name is string => typeof name === "string")
    const latest = tables.includes(migrationsTable)
      ? db.prepare(`SELECT coalesce(max(migration_id), 0) FROM ${migrationsTable}`).pluck().get()
      : 0
    const newer = Math.max(userVersion, Number(latest)) > schemaVersion
    const oldest = newer && tables.includes(readersTable)
      ? db.prepare(`SELECT max(oldest_schema) FROM ${readersTable}`).pluck().get()
      : undefined
    return {
      tables,
      latestMigration: Number(latest),
      oldestSchema: typeof oldest === "number" ? oldest : undefined
    }
  } finally {
    db.close()
  }
}

/** Why a read-only connection could not read the file, as one line naming it. */
const unreadable = (filename: string, ours: boolean, cause: unknown): StoreError => {
  const code = errorCode(cause) ?? ""
  if (code === "SQLITE_READONLY_DIRECTORY" || code === "SQLITE_CANTOPEN" || code.startsWith("SQLITE_IOERR")) {
    return new StoreError({
      message: `${filename} is read-only here: SQLite needs to create ${Path.basename(filename)}-shm and -wal next ` +
        `to it and ${Path.dirname(filename)} is not writable (${firstLine(cause)})`,
      cause
    })
  }
  if (ours && isSqliteCorruptionCode(code)) {
    return corrupted(filename, firstLine(cause), cause)
  }
  return notAStore(filename, `unreadable SQLite database: ${firstLine(cause)}`, cause)
}

const fail = (filename: string, what: string) => (cause: unknown) =>
  new StoreError({ message: `cannot ${what} ${filename}: ${firstLine(cause)}`, cause })

/**
 * Checks, without changing anything, that `filename` is absent, empty, or a DeepNote store this build can open, and
 * whether it must be opened read-only. Creates the parent directory when missing. Refuses (file untouched) a file
 * that is not SQLite, another application's database, a corrupted store, a store written by a newer build that needs a
 * migration this one does not know (`internal/readers.ts`), and a
 * read-only store that would need migrating.
 */
export const inspectStoreFile = (filename: string): Effect.Effect<StoreFileState, StoreError> =>
  Effect.gen(function*() {
    if (filename === ":memory:" || filename === "") return { _tag: "Memory" } as const
    const stat = yield* Effect.try({
      try: () => (Fs.existsSync(filename) ? Fs.statSync(filename) : undefined),
      catch: fail(filename, "read")
    })
    if (stat === undefined) {
      yield* Effect.try({
        try: () => Fs.mkdirSync(Path.dirname(Path.resolve(filename)), { recursive: true }),
        catch: fail(filename, "create the directory of")
      })
      return { _tag: "Fresh" } as const
    }
    if (!stat.isFile()) return yield* notAStore(filename, "not a regular file")
    const readOnly = !(yield* Effect.try({ try: () => writable(filename), catch: fail(filename, "open") }))
    if (stat.size === 0) {
      if (readOnly) {
        return yield* new StoreError({ message: `${filename} is empty and read-only: cannot create a store` })
      }
      return { _tag: "Fresh" } as const
    }
    const header = yield* Effect.try({ try: () => readHeader(filename), catch: fail(filename, "read") })
    if (header.length < 100 || header.toString("latin1", 0, 16) !== magic) {
      return yield* notAStore(filename, "not an SQLite database")
    }
    const fileAppId = header.readUInt32BE(68)
    const userVersion = header.readUInt32BE(60)
    const ours = fileAppId === applicationId
    // a file whose header says a newer build wrote it, and that cannot be looked into (damaged, or in a form this
    // build's SQLite cannot read), is reported as the newer build's
    const headerNewer = ours && userVersion > schemaVersion
    if (ours) {
      const damage = headerDamage(filename, header, stat.size)
      if (damage !== undefined) {
        return yield* (headerNewer ? newerStore(filename, userVersion, undefined) : corrupted(filename, damage))
      }
    }
    const found = yield* Effect.try({
      try: () => probe(filename, userVersion),
      catch: (cause) => headerNewer ? newerStore(filename, userVersion, undefined) : unreadable(filename, ours, cause)
    })
    if (ours) {
      const version = Math.max(userVersion, found.latestMigration)
      if (!mayOpen(version, found.oldestSchema)) return yield* newerStore(filename, version, found.oldestSchema)
      if (readOnly && userVersion < schemaVersion) {
        return yield* new StoreError({
          message: `${filename} is read-only and has schema version ${userVersion}; this build needs ` +
            `${schemaVersion}: open it once with write access to upgrade it`
        })
      }
      return { _tag: "Store", version: userVersion, readOnly } as const
    }
    if (fileAppId !== 0) return yield* notAStore(filename, `SQLite application_id is 0x${fileAppId.toString(16)}`)
    const foreign = found.tables.filter((t) => t !== migrationsTable && !t.startsWith("sqlite_"))
    if (foreign.length > 0) {
      return yield* notAStore(filename, `an SQLite database with other tables: ${foreign.slice(0, 5).join(", ")}`)
    }
    if (readOnly) return yield* new StoreError({ message: `${filename} is read-only: cannot create a store in it` })
    return { _tag: "Fresh" } as const
  })
