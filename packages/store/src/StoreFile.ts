import Sqlite from "better-sqlite3"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { StoreError } from "./Domain/Errors.js"
import { applicationId, migrationsTable, schemaVersion } from "./Migrations.js"

/** What a store file turned out to be. */
export type StoreFileState =
  | { readonly _tag: "Memory" }
  | { readonly _tag: "Fresh" }
  | { readonly _tag: "Store"; readonly version: number }

const magic = "SQLite format 3\u0000"

const notAStore = (filename: string, why: string, cause?: unknown) =>
  new StoreError({ message: `${filename} is not a DeepNote store (${why})`, cause })

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

interface Probe {
  readonly applicationId: number
  readonly userVersion: number
  readonly tables: ReadonlyArray<string>
}

/** Reads the pragmas and table names through a read-only connection: never writes to the main database file. */
const probe = (filename: string): Probe => {
  const db = new Sqlite(filename, { readonly: true, fileMustExist: true })
  try {
    const num = (name: string) => Number(db.pragma(name, { simple: true }))
    const rows = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all()
    const tables = rows.flatMap((row) =>
      typeof row === "object" && row !== null && "name" in row && typeof row.name === "string" ? [row.name] : []
    )
    return { applicationId: num("application_id"), userVersion: num("user_version"), tables }
  } finally {
    db.close()
  }
}

/**
 * Checks, without changing anything, that `filename` is absent, empty, or a DeepNote store this build can open.
 * Creates the parent directory when missing.
 */
export const inspectStoreFile = (filename: string): Effect.Effect<StoreFileState, StoreError> =>
  Effect.gen(function*() {
    if (filename === ":memory:" || filename === "") return { _tag: "Memory" } as const
    const stat = yield* Effect.try({
      try: () => (Fs.existsSync(filename) ? Fs.statSync(filename) : undefined),
      catch: (cause) => new StoreError({ message: `cannot read ${filename}: ${String(cause)}`, cause })
    })
    if (stat === undefined) {
      yield* Effect.try({
        try: () => Fs.mkdirSync(Path.dirname(Path.resolve(filename)), { recursive: true }),
        catch: (cause) =>
          new StoreError({ message: `cannot create the directory of ${filename}: ${String(cause)}`, cause })
      })
      return { _tag: "Fresh" } as const
    }
    if (!stat.isFile()) return yield* notAStore(filename, "not a regular file")
    if (stat.size === 0) return { _tag: "Fresh" } as const
    const header = yield* Effect.try({
      try: () => readHeader(filename),
      catch: (cause) => new StoreError({ message: `cannot read ${filename}: ${String(cause)}`, cause })
    })
    if (header.length < 100 || header.toString("latin1", 0, 16) !== magic) {
      return yield* notAStore(filename, "not an SQLite database")
    }
    const found = yield* Effect.try({
      try: () => probe(filename),
      catch: (cause) => notAStore(filename, `unreadable SQLite database: ${String(cause)}`, cause)
    })
    if (found.applicationId === applicationId) {
      if (found.userVersion > schemaVersion) {
        return yield* new StoreError({
          message: `${filename} was written by a newer DeepNote (schema version ${found.userVersion}; ` +
            `this build knows up to ${schemaVersion})`
        })
      }
      return { _tag: "Store", version: found.userVersion } as const
    }
    if (found.applicationId !== 0) {
      return yield* notAStore(filename, `SQLite application_id is 0x${found.applicationId.toString(16)}`)
    }
    const foreign = found.tables.filter((t) => t !== migrationsTable && !t.startsWith("sqlite_"))
    if (foreign.length > 0) {
      return yield* notAStore(filename, `an SQLite database with other tables: ${foreign.slice(0, 5).join(", ")}`)
    }
    return { _tag: "Fresh" } as const
  })
