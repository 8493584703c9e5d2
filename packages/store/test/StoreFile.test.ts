import { SqliteClient } from "@effect/sql-sqlite-node"
import { assert, describe, it } from "@effect/vitest"
import Sqlite from "better-sqlite3"
import { Effect, Layer, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { applicationId, RunStore, schemaVersion, Store } from "../src/index.js"
import { quickCheck } from "../src/internal/corruption.js"
import { fingerprint, laterMigration, manifest, migrateAsFutureBuild, question, tempDir } from "./fixtures.js"

const open = (filename: string) => Layer.build(Store.layer({ url: filename })).pipe(Effect.scoped)

const refused = (filename: string) =>
  Effect.gen(function*() {
    const before = fingerprint(filename)
    const error = yield* Effect.flip(open(filename))
    assert.strictEqual(error._tag, "StoreError")
    assert.deepStrictEqual(fingerprint(filename), before)
    assert.notInclude(error.message, "\n")
    return error.message
  })

/** A store with one run of 400 items: several pages per table and index. */
const seedItems = (filename: string) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    yield* store.createRun({ manifest: manifest(), id: "r-big" })
    yield* store.addItems("r-big", Array.from({ length: 400 }, (_, i) => question(`q${i}`)))
  }).pipe(Effect.provide(Store.layer({ url: filename })))

describe("store file", () => {
  it.scopedLive("creates a fresh store with its directory, and reopening is idempotent", () =>
    Effect.gen(function*() {
      const filename = Path.join(yield* tempDir, "nested", "deepnote.sqlite")
      for (let i = 0; i < 3; i++) {
        yield* Effect.gen(function*() {
          const store = yield* RunStore
          yield* store.createRun({ manifest: manifest(), id: `r-${i}` })
        }).pipe(Effect.provide(Store.layer({ url: `sqlite:${filename}` })))
      }
      const db = new Sqlite(filename, { readonly: true })
      assert.strictEqual(db.pragma("application_id", { simple: true }), applicationId)
      assert.strictEqual(db.pragma("user_version", { simple: true }), schemaVersion)
      assert.strictEqual(db.pragma("journal_mode", { simple: true }), "wal")
      assert.deepStrictEqual(
        db.prepare("SELECT migration_id FROM deepnote_migrations ORDER BY migration_id").all(),
        Array.from({ length: schemaVersion }, (_, i) => ({ migration_id: i + 1 }))
      )
      assert.deepStrictEqual(db.prepare("SELECT count(*) AS n FROM runs").get(), { n: 3 })
      db.close()
    }))

  it.scopedLive("refuses a file that is not SQLite and leaves it unchanged", () =>
    Effect.gen(function*() {
      const filename = Path.join(yield* tempDir, "garbage.sqlite")
      Fs.writeFileSync(filename, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37 + 11) % 256)))
      const message = yield* refused(filename)
      assert.include(message, "is not a DeepNote store (not an SQLite database)")
      assert.include(message, filename)
    }))

  it.scopedLive("refuses a corrupted store whose header survived, naming the file", () =>
    Effect.gen(function*() {
      const filename = Path.join(yield* tempDir, "corrupt.sqlite")
      yield* open(filename)
      const bytes = Fs.readFileSync(filename)
      bytes.fill(0xab, 100)
      Fs.writeFileSync(filename, bytes)
      const message = yield* refused(filename)
      assert.include(message, `${filename} is corrupted`)
    }))

  it.scopedLive("refuses a truncated store, naming the file", () =>
    Effect.gen(function*() {
      const filename = Path.join(yield* tempDir, "truncated.sqlite")
      yield* seedItems(filename)
      Fs.truncateSync(filename, Math.floor(Fs.statSync(filename).size / 2))
      const message = yield* refused(filename)
      assert.match(message, new RegExp(`^${filename} is corrupted \\(truncated: `))
    }))

  it.scopedLive("damage only quick_check finds is named at the first failing statement", () =>
    Effect.gen(function*() {
      const filename = Path.join(yield* tempDir, "damaged.sqlite")
      yield* seedItems(filename)
      const db = new Sqlite(filename)
      const pageSize = Number(db.pragma("page_size", { simple: true }))
      const root = Number(db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'items_status'").pluck().get())
      db.close()
      // break the b-tree header of one index page: the schema (page 1) and the header stay sound
      const bytes = Fs.readFileSync(filename)
      bytes.fill(0xff, (root - 1) * pageSize, (root - 1) * pageSize + 8)
      Fs.writeFileSync(filename, bytes)
      const [read, write] = yield* Effect.gen(function*() {
        const store = yield* RunStore
        return [
          yield* Effect.flip(store.getRun("r-big")),
          yield* Effect.flip(store.addItems("r-big", [question("new")]))
        ] as const
      }).pipe(Effect.provide(Store.layer({ url: filename })))
      for (const [error, action] of [[read, "reading runs"], [write, "adding items"]] as const) {
        assert.strictEqual(error._tag, "StoreError")
        assert.match(error.message, new RegExp(`^${filename} is corrupted \\(quick_check: [^*].+\\): ${action} failed`))
        assert.notInclude(error.message, "\n")
      }
    }))

  it.scopedLive("a quick_check that cannot run is no finding; SQLite saying the file is damaged is", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      // cannot run: no such file (as when another process's last close removed what was being opened), a directory
      assert.isTrue(Option.isNone(yield* quickCheck(Path.join(dir, "gone.sqlite"))))
      assert.isTrue(Option.isNone(yield* quickCheck(dir)))
      const garbage = Path.join(dir, "garbage.sqlite")
      Fs.writeFileSync(garbage, Buffer.alloc(8192, 0xab))
      assert.match(Option.getOrThrow(yield* quickCheck(garbage)), /not a database/)
      const sound = Path.join(dir, "sound.sqlite")
      yield* seedItems(sound)
      assert.isTrue(Option.isNone(yield* quickCheck(sound)))
    }))

  it.scopedLive("refuses another application's SQLite database and leaves it unchanged", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const other = Path.join(dir, "other.sqlite")
      const db = new Sqlite(other)
      db.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
      db.close()
      assert.include(yield* refused(other), "is not a DeepNote store (an SQLite database with other tables: customers)")

      const tagged = Path.join(dir, "tagged.sqlite")
      const db2 = new Sqlite(tagged)
      db2.pragma("application_id = 1234")
      db2.exec("CREATE TABLE t (x)")
      db2.close()
      assert.include(yield* refused(tagged), "SQLite application_id is 0x4d2")
    }))

  it.scopedLive("refuses a store written by a newer schema version, by header or by migrations table", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const filename = Path.join(dir, "newer.sqlite")
      yield* open(filename)
      const db = new Sqlite(filename)
      db.pragma(`user_version = ${schemaVersion + 1}`)
      db.prepare("UPDATE deepnote_readers SET oldest_schema = ?").run(schemaVersion + 1)
      db.close()
      assert.include(yield* refused(filename), `newer DeepNote (schema version ${schemaVersion + 1}`)

      const recorded = Path.join(dir, "recorded.sqlite")
      yield* open(recorded)
      const db2 = new Sqlite(recorded)
      db2.prepare("INSERT INTO deepnote_migrations (migration_id, name) VALUES (?, 'future')").run(schemaVersion + 5)
      db2.prepare("UPDATE deepnote_readers SET oldest_schema = ?").run(schemaVersion + 5)
      db2.close()
      assert.include(yield* refused(recorded), `newer DeepNote (schema version ${schemaVersion + 5}`)

      // a newer build's file this one cannot look into (cut short, or its schema pages unreadable) is still reported
      // as the newer build's, not as a damaged store
      for (const damage of ["truncated", "unreadable"] as const) {
        const unreadable = Path.join(dir, `${damage}.sqlite`)
        yield* seedItems(unreadable)
        const db3 = new Sqlite(unreadable)
        db3.pragma("wal_checkpoint(TRUNCATE)")
        db3.pragma(`user_version = ${schemaVersion + 2}`)
        db3.pragma("journal_mode = DELETE")
        db3.close()
        if (damage === "truncated") Fs.truncateSync(unreadable, Math.floor(Fs.statSync(unreadable).size / 2))
        else {
          const fd = Fs.openSync(unreadable, "r+")
          Fs.writeSync(fd, Buffer.alloc(4096 - 100, 0xa5), 0, 4096 - 100, 100)
          Fs.closeSync(fd)
        }
        assert.match(
          yield* refused(unreadable),
          new RegExp(
            `^${unreadable} was written by a newer DeepNote \\(schema version ${schemaVersion + 2}; this build`
          )
        )
      }
    }))

  it.scopedLive("opens a newer store whose migrations builds of this version may use; refuses one that needs a newer build", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const filename = Path.join(dir, "future.sqlite")
      yield* open(filename)
      // a future build applies its next migration, an index this build may live with, through the registry
      const future = schemaVersion + 1
      yield* migrateAsFutureBuild(
        SqliteClient.layer({ filename }),
        laterMigration(future, true, (sql) => sql`CREATE INDEX future_runs_created ON runs (created_at)`)
      )
      const db = new Sqlite(filename, { readonly: true })
      assert.strictEqual(db.pragma("user_version", { simple: true }), future, "the registry records the header")
      assert.deepStrictEqual(db.prepare("SELECT oldest_schema FROM deepnote_readers").all(), [{ oldest_schema: 14 }])
      db.close()

      yield* Effect.gen(function*() {
        const store = yield* RunStore
        yield* store.createRun({ manifest: manifest(), id: "r-old-build" })
        yield* store.addItems("r-old-build", [question("q1"), question("q2")])
        assert.deepStrictEqual((yield* store.listRuns()).map((r) => r.id), ["r-old-build"])
        assert.strictEqual((yield* store.getRun("r-old-build")).counts.total, 2)
      }).pipe(Effect.provide(Store.layer({ url: filename })))
      const after = new Sqlite(filename, { readonly: true })
      assert.strictEqual(after.pragma("user_version", { simple: true }), future, "the store keeps its version")
      assert.deepStrictEqual(
        after.prepare("SELECT max(migration_id) AS n FROM deepnote_migrations").get(),
        { n: future },
        "and its migrations"
      )
      assert.isDefined(after.prepare("SELECT name FROM sqlite_master WHERE name = 'future_runs_created'").get())
      after.close()

      // the future build's next migration is one this build cannot live with: the registry says so for it
      yield* migrateAsFutureBuild(
        SqliteClient.layer({ filename }),
        laterMigration(future, true, (sql) => sql`CREATE INDEX future_runs_created ON runs (created_at)`),
        laterMigration(future + 1, false, (sql) => sql`ALTER TABLE runs ADD COLUMN future_priority INTEGER`)
      )
      const message = yield* refused(filename)
      assert.include(
        message,
        `newer DeepNote (schema version ${future + 1}, which needs a build that knows ${future + 1}; this build ` +
          `knows up to ${schemaVersion}); it was left untouched`
      )
    }))

  it.scopedLive("opens an empty file as a fresh store", () =>
    Effect.gen(function*() {
      const filename = Path.join(yield* tempDir, "empty.sqlite")
      Fs.writeFileSync(filename, "")
      yield* open(filename)
      const db = new Sqlite(filename, { readonly: true })
      assert.strictEqual(db.pragma("application_id", { simple: true }), applicationId)
      db.close()
    }))
})
