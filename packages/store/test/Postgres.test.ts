import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { RunStore, schemaVersion, Store } from "../src/index.js"
import { EmbeddedPostgres } from "../src/testing/index.js"
import { laterMigration, manifest, migrateAsFutureBuild } from "./fixtures.js"

const open = (url: string) => Layer.build(Store.layer({ url })).pipe(Effect.scoped)

/** Runs statements on a database directly. */
const admin = <A, E>(url: string, effect: Effect.Effect<A, E, PgClient.PgClient>) =>
  Effect.provide(effect, PgClient.layer({ url: Redacted.make(url) }))

describe("Postgres store", () => {
  it.effect("an unreachable server is a StoreError naming the URL without its password", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(open("postgres://deepnote:s3cret@127.0.0.1:1/runs"))
      assert.strictEqual(error._tag, "StoreError")
      assert.include(error.message, "cannot reach the Postgres store postgres://deepnote:***@127.0.0.1:1/runs")
      assert.notInclude(error.message, "s3cret")
      assert.notInclude(error.message, "\n")
    }))

  it.layer(EmbeddedPostgres.layer, { timeout: "60 seconds" })((it) => {
    it.effect("several clients opening a fresh database at once all migrate it, once", () =>
      Effect.gen(function*() {
        const url = yield* (yield* EmbeddedPostgres).createDatabase
        yield* Effect.all([open(url), open(url), open(url)], { concurrency: "unbounded" })
        const rows = yield* admin(
          url,
          Effect.flatMap(
            PgClient.PgClient,
            (sql) => sql<{ migration_id: number }>`SELECT migration_id FROM deepnote_migrations ORDER BY migration_id`
          )
        )
        assert.deepStrictEqual(rows.map((r) => r.migration_id), Array.from({ length: schemaVersion }, (_, i) => i + 1))
        const run = yield* Effect.gen(function*() {
          yield* (yield* RunStore).createRun({ manifest: manifest(), id: "r-pg" })
          return yield* (yield* RunStore).getRun("r-pg")
        }).pipe(Effect.provide(Store.layer({ url: url.replace("postgres://", "postgresql://") })))
        assert.strictEqual(run.id, "r-pg")
      }))

    it.effect("connections dropped under it (a restart, a failover): the store reconnects, nothing stored is lost", () =>
      Effect.gen(function*() {
        const url = yield* (yield* EmbeddedPostgres).createDatabase
        yield* Effect.gen(function*() {
          const runs = yield* RunStore
          yield* runs.createRun({ manifest: manifest(), id: "r-before" })
          // every connection of the store's pool is closed by the server, as a restart or failover would
          const dropped = yield* admin(
            url,
            Effect.flatMap(
              PgClient.PgClient,
              (sql) =>
                sql<{ dropped: boolean }>`SELECT pg_terminate_backend(pid) AS dropped FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid()`
            )
          )
          assert.isAbove(dropped.filter((row) => row.dropped).length, 0, "the store's connections were dropped")
          // a statement on a dropped connection fails — a StoreError ("terminating connection due to administrator
          // command", then "Connection terminated unexpectedly" on the pool's other one), never a defect — and once
          // the pool has let the dead connections go the store works again
          const failures: Array<string> = []
          const after = yield* runs.createRun({ manifest: manifest(), id: "r-after" }).pipe(
            Effect.tapError((error) => Effect.sync(() => failures.push(error._tag))),
            Effect.retry({ times: 10 })
          )
          assert.strictEqual(after.id, "r-after")
          assert.isTrue(failures.every((tag) => tag === "StoreError"), failures.join(", "))
          assert.deepStrictEqual((yield* runs.listRuns()).map((r) => r.id).sort(), ["r-after", "r-before"])
        }).pipe(Effect.provide(Store.layer({ url })))
      }))

    it.effect("a database a newer build migrated opens when builds of this version may use it, else is refused", () =>
      Effect.gen(function*() {
        const url = yield* (yield* EmbeddedPostgres).createDatabase
        yield* open(url)
        const future = schemaVersion + 1
        const next = future + 1
        // a future build applies its next migration, an index this build may live with, through the registry
        yield* migrateAsFutureBuild(
          PgClient.layer({ url: Redacted.make(url) }),
          laterMigration(future, true, (sql) => sql`CREATE INDEX future_runs_created ON runs (created_at)`)
        )
        assert.deepStrictEqual(
          yield* admin(
            url,
            Effect.flatMap(PgClient.PgClient, (sql) => sql`SELECT oldest_schema FROM deepnote_readers`)
          ),
          [{ oldest_schema: 14 }]
        )
        const ids = yield* Effect.gen(function*() {
          const runs = yield* RunStore
          yield* runs.createRun({ manifest: manifest(), id: "r-old-build" })
          return (yield* runs.listRuns()).map((r) => r.id)
        }).pipe(Effect.provide(Store.layer({ url })))
        assert.deepStrictEqual(ids, ["r-old-build"])
        const migrated = yield* admin(
          url,
          Effect.flatMap(
            PgClient.PgClient,
            (sql) => sql<{ n: number }>`SELECT max(migration_id) AS n FROM deepnote_migrations`
          )
        )
        assert.deepStrictEqual(migrated, [{ n: future }])

        // its next migration is one this build cannot live with: the registry records that builds must know it
        yield* migrateAsFutureBuild(
          PgClient.layer({ url: Redacted.make(url) }),
          laterMigration(future, true, (sql) => sql`CREATE INDEX future_runs_created ON runs (created_at)`),
          laterMigration(next, false, (sql) => sql`ALTER TABLE runs ADD COLUMN future_priority INTEGER`)
        )
        const error = yield* Effect.flip(open(url))
        assert.strictEqual(error._tag, "StoreError")
        assert.include(
          error.message,
          `was written by a newer DeepNote (schema version ${next}, which needs a build that knows ${next}; ` +
            `this build knows up to ${schemaVersion})`
        )
      }))

    it.effect("a database migrated by a newer build is refused and left untouched", () =>
      Effect.gen(function*() {
        const url = yield* (yield* EmbeddedPostgres).createDatabase
        yield* admin(
          url,
          Effect.gen(function*() {
            const sql = yield* PgClient.PgClient
            yield* sql`CREATE TABLE deepnote_migrations (migration_id integer primary key,
            created_at timestamp with time zone not null default now(), name text not null)`
            yield* sql`INSERT INTO deepnote_migrations (migration_id, name) VALUES (${schemaVersion + 3}, 'future')`
          })
        )
        const error = yield* Effect.flip(open(url))
        assert.strictEqual(error._tag, "StoreError")
        assert.include(error.message, `was written by a newer DeepNote (schema version ${schemaVersion + 3}`)
        assert.include(error.message, ":***@127.0.0.1")
        const tables = yield* admin(
          url,
          Effect.flatMap(
            PgClient.PgClient,
            (sql) =>
              sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables
            WHERE table_schema = current_schema() ORDER BY table_name`
          )
        )
        assert.deepStrictEqual(tables.map((t) => t.name), ["deepnote_migrations"])
      }))
  })
})
