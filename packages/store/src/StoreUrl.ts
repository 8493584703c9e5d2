import { Data, Effect, Either, ParseResult, Redacted, Schema } from "effect"
import * as Path from "node:path"

/** An SQLite store: a file (created with its directory when missing), or `:memory:`. */
export class SqliteStoreUrl extends Schema.TaggedClass<SqliteStoreUrl>()("Sqlite", {
  filename: Schema.String
}) {
  /** How the store is named in messages. */
  get display(): string {
    return this.filename
  }

  /** `sqlite::memory:`: a store that lives and dies with one process's connection (no other process can open it). */
  get inMemory(): boolean {
    return this.filename === ":memory:"
  }
}

/** A Postgres store: a database reached by a `postgres://` URL (its password stays redacted). */
export class PostgresStoreUrl extends Schema.TaggedClass<PostgresStoreUrl>()("Postgres", {
  url: Schema.Redacted(Schema.String)
}) {
  /** The URL with its password replaced by `***`: `postgres://user:***@host:port/db`. */
  get display(): string {
    return redactUrl(Redacted.value(this.url))
  }

  get inMemory(): boolean {
    return false
  }
}

/** Where a store lives. */
export type StoreUrl = SqliteStoreUrl | PostgresStoreUrl

/** The forms a store URL may take, for messages. */
export const acceptedForms =
  "sqlite:PATH, a file path, sqlite::memory:, or postgres://user:password@host:port/database (or postgresql://…)"

/** A store URL that names no store this build can open: a usage error (the CLI exits with code 2). */
export class InvalidStoreUrl extends Data.TaggedError("InvalidStoreUrl")<{ readonly message: string }> {}

const schemePattern = /^([A-Za-z][A-Za-z0-9+.-]+):/u

/** Parses a store URL; the message never repeats a password. */
const parse = (text: string): Either.Either<StoreUrl, string> => {
  const trimmed = text.trim()
  if (trimmed === "") return Either.left(`the store URL is empty; use ${acceptedForms}`)
  const scheme = schemePattern.exec(trimmed)?.[1]?.toLowerCase()
  if (scheme === undefined) return Either.right(new SqliteStoreUrl({ filename: Path.resolve(trimmed) }))
  if (scheme === "sqlite") {
    const path = trimmed.slice("sqlite:".length)
    if (path === "") return Either.left(`"sqlite:" names no file; use ${acceptedForms}`)
    return Either.right(new SqliteStoreUrl({ filename: path === ":memory:" ? path : Path.resolve(path) }))
  }
  if (scheme === "postgres" || scheme === "postgresql") {
    const url = URL.canParse(trimmed) ? new URL(trimmed) : undefined
    if (url === undefined || url.hostname === "") {
      return Either.left(`"${redactUrl(trimmed)}" is not a valid Postgres URL; use ${acceptedForms}`)
    }
    return Either.right(new PostgresStoreUrl({ url: Redacted.make(trimmed) }))
  }
  return Either.left(`unsupported store URL scheme "${scheme}:"; use ${acceptedForms}`)
}

/** A URL with its password (in the user info or a `password` parameter) replaced by `***`. */
export const redactUrl = (text: string): string => {
  if (!URL.canParse(text)) return text.replace(/\/\/([^:/@]*):[^@]*@/u, "//$1:***@")
  const url = new URL(text)
  const user = url.username === "" ? "" : `${url.username}${url.password === "" ? "" : ":***"}@`
  const params = [...url.searchParams.entries()].map(([k, v]) => `${k}=${k.toLowerCase() === "password" ? "***" : v}`)
  return `${url.protocol}//${user}${url.host}${url.pathname}${params.length === 0 ? "" : `?${params.join("&")}`}`
}

/**
 * A store URL as text → `SqliteStoreUrl | PostgresStoreUrl`: `sqlite:PATH` or a bare path (relative paths are resolved
 * against the working directory), `sqlite::memory:`, `postgres://…` or `postgresql://…`.
 */
export const StoreUrl = Schema.transformOrFail(
  Schema.String,
  Schema.Union(Schema.typeSchema(SqliteStoreUrl), Schema.typeSchema(PostgresStoreUrl)),
  {
    strict: true,
    decode: (text, _, ast) =>
      Either.match(parse(text), {
        onLeft: (message) => ParseResult.fail(new ParseResult.Type(ast, text.replace(/:[^:@/]*@/u, ":***@"), message)),
        onRight: ParseResult.succeed
      }),
    encode: (url) => ParseResult.succeed(url._tag === "Sqlite" ? `sqlite:${url.filename}` : Redacted.value(url.url))
  }
)

/** Parses a store URL, failing with `InvalidStoreUrl` naming the accepted forms. */
export const parseStoreUrl = (url: string | StoreUrl): Effect.Effect<StoreUrl, InvalidStoreUrl> =>
  typeof url === "string"
    ? Either.match(parse(url), {
      onLeft: (message) => Effect.fail(new InvalidStoreUrl({ message })),
      onRight: Effect.succeed
    })
    : Effect.succeed(url)

/** The SQLite store of a home: `<root>/deepnote.sqlite` (the store package owns this file name). */
export const homeStoreUrl = (root: string): SqliteStoreUrl =>
  new SqliteStoreUrl({ filename: Path.join(Path.resolve(root), "deepnote.sqlite") })
