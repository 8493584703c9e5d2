import { Answer, PipelineEvent, Question } from "@deepnote/core"
import { Migrator, SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { assert, describe, it } from "@effect/vitest"
import Sqlite from "better-sqlite3"
import { Effect, Layer, Schema } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import {
  applicationId,
  EventLog,
  Journal,
  migrations,
  migrationsTable,
  RunManifest,
  RunStore,
  schemaVersion,
  Store
} from "../src/index.js"
import { fingerprint, manifest, question, result, tempDir } from "./fixtures.js"
import { writeLegacyStore } from "./legacyStore.js"

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

const schemaOf = (db: Sqlite.Database) =>
  db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name").all()

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

  it.scopedLive("migrations 1-3 create exactly the schema of existing stores", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const legacy = Path.join(dir, "legacy.sqlite")
      writeLegacyStore(legacy)
      const fresh = Path.join(dir, "fresh.sqlite")
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const all = migrations(sql)
        const firstThree = {
          "1_initial": all["1_initial"],
          "2_run_owners": all["2_run_owners"],
          "3_ingest_jobs": all["3_ingest_jobs"]
        }
        yield* Migrator.make({})({ loader: Migrator.fromRecord(firstThree), table: migrationsTable })
      }).pipe(Effect.provide(SqliteClient.layer({ filename: fresh })), Effect.orDie)
      const [a, b] = [new Sqlite(legacy, { readonly: true }), new Sqlite(fresh, { readonly: true })]
      assert.deepStrictEqual(schemaOf(b), schemaOf(a))
      for (const pragma of ["application_id", "user_version"]) {
        assert.strictEqual(b.pragma(pragma, { simple: true }), a.pragma(pragma, { simple: true }))
      }
      a.close()
      b.close()
    }))

  it.scopedLive("an existing version-3 store opens, is upgraded, and keeps working", () =>
    Effect.gen(function*() {
      const filename = Path.join(yield* tempDir, "deepnote.sqlite")
      writeLegacyStore(filename)
      const encode = <A, I>(schema: Schema.Schema<A, I>, value: A) => JSON.stringify(Schema.encodeSync(schema)(value))
      const event = (questionId: string) =>
        encode(PipelineEvent, {
          _tag: "Answered",
          questionId,
          step: 1,
          elapsedMs: 1,
          answer: new Answer({ text: "x" }),
          durationMs: 1
        })
      const db = new Sqlite(filename)
      const now = "2026-01-01T00:00:00.000Z"
      for (const id of ["r-old-a", "r-old-b"]) {
        db.prepare("INSERT INTO runs (id, status, manifest, created_at, updated_at) VALUES (?, 'running', ?, ?, ?)")
          .run(id, encode(RunManifest, manifest()), now, now)
        for (const [seq, item] of ["q1", "q2"].entries()) {
          db.prepare("INSERT INTO items (run_id, item_id, seq, question) VALUES (?, ?, ?, ?)")
            .run(id, item, seq, encode(Question, question(item)))
        }
      }
      const addEvent = db.prepare("INSERT INTO events (run_id, item_id, event, created_at) VALUES (?, ?, ?, ?)")
      for (
        const [run, item] of [["r-old-a", "q1"], ["r-old-b", "q1"], ["r-old-a", "q2"], ["r-old-b", "q2"], [
          "r-old-a",
          "q1"
        ]]
      ) {
        addEvent.run(run, item, event(item!), now)
      }
      db.prepare(
        `INSERT INTO journal (run_id, item_id, seq, kind, request_hash, response, usage, latency_ms, created_at)
        VALUES ('r-old-a', 'q1', 0, 'init', 'h', '"note"', '{"promptTokens":11,"completionTokens":4}', 2, ?)`
      ).run(now)
      db.prepare("INSERT INTO caches (namespace, key, value, created_at) VALUES ('n', 'k', '1', ?)").run(now)
      db.close()

      yield* Effect.gen(function*() {
        const store = yield* RunStore
        const log = yield* EventLog
        const a = yield* log.since("r-old-a")
        assert.deepStrictEqual(a.map((e) => [e.seq, e.itemId]), [[1, "q1"], [2, "q2"], [3, "q1"]])
        assert.deepStrictEqual((yield* log.since("r-old-b")).map((e) => [e.seq, e.itemId]), [[1, "q1"], [2, "q2"]])
        assert.deepStrictEqual(yield* log.append("r-old-a", "q2", [a[0]!.event]), [4])
        assert.deepStrictEqual(yield* store.addItems("r-old-a", [question("q3")]), { added: 1, skipped: 0 })
        assert.strictEqual((yield* store.getItem("r-old-a", "q3")).seq, 2)
        assert.deepStrictEqual(yield* (yield* Journal).totals("r-old-a"), [
          { itemId: "q1", calls: 1, llmCalls: 1, promptTokens: 11, completionTokens: 4, latencyMs: 2 }
        ])
        yield* store.completeItem({ runId: "r-old-a", itemId: "q3", result: result(question("q3")) })
      }).pipe(Effect.provide(Store.layer({ url: filename })))
      const after = new Sqlite(filename, { readonly: true })
      assert.strictEqual(after.pragma("user_version", { simple: true }), schemaVersion)
      assert.deepStrictEqual(
        after.prepare("SELECT name FROM sqlite_master WHERE name = 'caches'").all(),
        [],
        "the unused cache table is dropped"
      )
      after.close()
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

  it.scopedLive("refuses a store that only quick_check finds damaged, and writes nothing into it", () =>
    Effect.gen(function*() {
      const filename = Path.join(yield* tempDir, "damaged.sqlite")
      yield* Effect.gen(function*() {
        const store = yield* RunStore
        const run = yield* store.createRun({ manifest: manifest(), id: "r-big" })
        yield* store.addItems(run.id, Array.from({ length: 400 }, (_, i) => question(`q${i}`)))
      }).pipe(Effect.provide(Store.layer({ url: filename })))
      const db = new Sqlite(filename)
      const pageSize = Number(db.pragma("page_size", { simple: true }))
      const root = Number(db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'items_status'").pluck().get())
      db.close()
      // break the b-tree header of one index page; the schema (page 1) stays readable
      const bytes = Fs.readFileSync(filename)
      bytes.fill(0xff, (root - 1) * pageSize, (root - 1) * pageSize + 8)
      Fs.writeFileSync(filename, bytes)
      const message = yield* refused(filename)
      assert.match(message, new RegExp(`^${filename} is corrupted \\(quick_check: `))
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
      db.close()
      assert.include(yield* refused(filename), `newer DeepNote (schema version ${schemaVersion + 1}`)

      const recorded = Path.join(dir, "recorded.sqlite")
      yield* open(recorded)
      const db2 = new Sqlite(recorded)
      db2.prepare("INSERT INTO deepnote_migrations (migration_id, name) VALUES (?, 'future')").run(schemaVersion + 5)
      db2.close()
      assert.include(yield* refused(recorded), `newer DeepNote (schema version ${schemaVersion + 5}`)
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
