import { Note, Passage, type PipelineEvent, PipelineResult } from "@deepnote-rag/core"
import { Question } from "@deepnote-rag/core"
import { Migrator, SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted, Schema } from "effect"
import { createHash } from "node:crypto"
import * as Path from "node:path"
import { EventLog, Journal, migrations, migrationsTable, RunManifest, RunStore, Store } from "../src/index.js"
import { jsonDictionaryV1 } from "../src/internal/jsonDictionary.js"
import { StoredJsonValue } from "../src/internal/storedJson.js"
import { EmbeddedPostgres } from "../src/testing/index.js"
import { manifest, question, result, tempDir } from "./fixtures.js"

const json = <A, I>(schema: Schema.Schema<A, I>, value: A) => JSON.stringify(Schema.encodeSync(schema)(value))

const alpha = new Passage({
  id: "a",
  title: "Alpha",
  text: "alpha text, read by both questions",
  source: "s",
  score: 2
})
const note = new Note({ text: "a note long enough to be stored apart. ".repeat(10) })
const now = "2026-01-01T00:00:00.000Z"

/** Migrations 1-11 only: a store as the previous release left it. */
const migrateTo11 = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const all: Record<string, Effect.Effect<void, unknown, never>> = migrations(sql)
  const upTo11 = Object.fromEntries(Object.entries(all).filter(([key]) => Number(key.split("_")[0]) <= 11))
  yield* Migrator.make({})({ loader: Migrator.fromRecord(upTo11), table: migrationsTable })
})

/**
 * Rows as version 11 wrote them: passages and a note stored per question (the same passage under both questions),
 * values referring to them as JSON text.
 */
const writeVersion11Rows = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO runs ${
    sql.insert({
      id: "r-11",
      status: "running",
      manifest: json(RunManifest, manifest()),
      created_at: now,
      updated_at: now
    })
  }`
  for (const [seq, id] of ["q1", "q2"].entries()) {
    yield* sql`INSERT INTO items ${
      sql.insert({ run_id: "r-11", item_id: id, seq, question: json(Question, question(id)) })
    }`
    yield* sql`INSERT INTO passages ${
      sql.insert({
        run_id: "r-11",
        item_id: id,
        hash: "H-alpha",
        id: "a",
        source: "s",
        title: "Alpha",
        text: alpha.text
      })
    }`
    yield* sql`INSERT INTO journal ${
      sql.insert({
        run_id: "r-11",
        item_id: id,
        seq: 0,
        kind: "retrieve",
        request_hash: "h",
        response: JSON.stringify([{ $passage: "H-alpha", score: 2 }]),
        usage: null,
        latency_ms: 1,
        created_at: now
      })
    }`
  }
  yield* sql`INSERT INTO texts ${sql.insert({ run_id: "r-11", item_id: "q1", hash: "T-note", text: note.text })}`
  yield* sql`INSERT INTO events ${
    sql.insert({
      run_id: "r-11",
      seq: 1,
      item_id: "q1",
      event: JSON.stringify({
        _tag: "NoteInitialised",
        questionId: "q1",
        step: 0,
        elapsedMs: 1,
        note: { text: { $text: "T-note" } },
        durationMs: 1
      }),
      created_at: now
    })
  }`
  yield* sql`UPDATE runs SET next_event_seq = 2 WHERE id = 'r-11'`
})

const rawBytes = (value: unknown): Uint8Array => {
  assert.instanceOf(value, Uint8Array)
  return value as Uint8Array
}

/** Migration 12 upgrades what version 11 wrote; every value reads as before and new values are stored deflated. */
const upgradeAndRead = <E>(url: string, client: Layer.Layer<SqlClient.SqlClient, E>) =>
  Effect.gen(function*() {
    yield* Effect.orDie(Effect.provide(Effect.andThen(migrateTo11, writeVersion11Rows), client))
    yield* Effect.gen(function*() {
      const store = yield* RunStore
      const journal = yield* Journal
      const log = yield* EventLog
      const sql = yield* SqlClient.SqlClient
      const encodedAlpha = Schema.encodeSync(Passage)(alpha)
      for (const id of ["q1", "q2"]) {
        assert.deepStrictEqual((yield* journal.entries("r-11", id)).map((e) => e.response), [[encodedAlpha]])
      }
      const [initialised] = yield* log.since("r-11")
      assert.deepStrictEqual(
        initialised!.event,
        {
          _tag: "NoteInitialised",
          questionId: "q1",
          step: 0,
          elapsedMs: 1,
          note,
          durationMs: 1
        } satisfies PipelineEvent
      )
      assert.deepStrictEqual((yield* store.getItem("r-11", "q2")).question, question("q2"))
      // the passage both questions read is one row of the run now
      const rows = yield* sql<{ n: number | string }>`SELECT count(*) AS n FROM passages WHERE run_id = 'r-11'`
      assert.strictEqual(Number(rows[0]!.n), 1)

      // a result written now: stored deflated (format byte 1), its passages and note referred to, read back whole
      const done = new PipelineResult({
        ...result(question("q1")),
        bestNote: note,
        trace: { queries: [], passages: [{ step: 0, passage: alpha }], notes: [{ step: 0, note, best: true }] }
      })
      yield* store.completeItem({ runId: "r-11", itemId: "q1", result: done })
      const [stored] = yield* sql<
        { result: unknown }
      >`SELECT result FROM items WHERE run_id = 'r-11' AND item_id = 'q1'`
      const bytes = rawBytes(stored!.result)
      assert.strictEqual(bytes[0], 1)
      const decoded = JSON.stringify(Schema.decodeUnknownSync(StoredJsonValue)(bytes))
      assert.include(decoded, "$passage")
      assert.notInclude(decoded, alpha.text)
      assert.deepStrictEqual((yield* store.getItem("r-11", "q1")).result, done)
    }).pipe(Effect.provide(Store.layer({ url })))
  })

describe("migration 12: passages once per run, large values deflated", () => {
  it.scopedLive("SQLite: a version-11 store upgrades and reads as before", () =>
    Effect.gen(function*() {
      const filename = Path.join(yield* tempDir, "deepnote.sqlite")
      yield* upgradeAndRead(filename, SqliteClient.layer({ filename }))
    }))

  it.layer(EmbeddedPostgres.layer, { timeout: "60 seconds" })((it) => {
    it.effect("Postgres: a version-11 database upgrades (text columns to bytea) and reads as before", () =>
      Effect.gen(function*() {
        const url = yield* (yield* EmbeddedPostgres).createDatabase
        yield* upgradeAndRead(url, PgClient.layer({ url: Redacted.make(url) }))
      }))
  })
})

describe("stored JSON values", () => {
  const decode = Schema.decodeUnknownSync(StoredJsonValue)
  const encode = Schema.encodeSync(StoredJsonValue)

  it("a large value is deflated with the dictionary and reads back equal; a small one is stored plain", () => {
    const event = { _tag: "Retrieved", questionId: "q", step: 0, elapsedMs: 3, queries: ["which?"], passages: [] }
    const large = { ...event, queries: Array.from({ length: 20 }, (_, i) => `query number ${i}`) }
    const big = encode(large)
    assert.strictEqual(big[0], 1)
    assert.isBelow(big.length, JSON.stringify(large).length / 2)
    assert.deepStrictEqual(decode(big), large)
    const small = encode({ text: "x" })
    assert.strictEqual(small[0], 0)
    assert.deepStrictEqual(decode(small), { text: "x" })
  })

  it("the format-1 dictionary is the one every stored value was deflated with (editing it would make them unreadable)", () => {
    const digest = createHash("sha256").update(jsonDictionaryV1).digest("hex")
    assert.strictEqual(digest, "5cfa980c9e73580e793cda90a0892e7019016e195c2bcd13f6e754ab51068c9c")
  })

  it("JSON written before (text, or its UTF-8 bytes) reads as it is; damaged bytes are a decode error", () => {
    assert.deepStrictEqual(decode("[1,\"two\"]"), [1, "two"])
    assert.deepStrictEqual(decode(Buffer.from("{\"a\":\"é\"}", "utf8")), { a: "é" })
    assert.throws(() => decode(Buffer.of(1, 0xff, 0x00, 0x13)), /a stored JSON value does not read/u)
  })
})
