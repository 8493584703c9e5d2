import { Answer, PipelineEvent, Question } from "@deepnote-rag/core"
import { Migrator, SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { assert, describe, it } from "@effect/vitest"
import Sqlite from "better-sqlite3"
import { Effect, Schema } from "effect"
import * as Path from "node:path"
import {
  EventLog,
  Journal,
  migrations,
  migrationsTable,
  RunManifest,
  RunStore,
  schemaVersion,
  Store
} from "../src/index.js"
import { manifest, question, result, tempDir } from "./fixtures.js"
import { writeLegacyStore } from "./legacyStore.js"

const schemaOf = (db: Sqlite.Database) =>
  db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name").all()

describe("existing SQLite stores", () => {
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
})
