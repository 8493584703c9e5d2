import { Home } from "@deepnote-rag/core"
import { assert, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { collectionApplicationId, collectionFile, Collections, type CorpusDocument } from "../src/index.js"
import { laterMigration, migrateAsFutureBuild } from "./support/FutureCollectionBuild.js"
import { writeLegacyCollection } from "./support/LegacyCollection.js"
import { headOf, TempHome } from "./support/TempHome.js"

/** Runs `effect` with a `Collections` of its own, so every file it opened is closed afterwards. */
const fresh = <A, E>(effect: Effect.Effect<A, E, Collections>) =>
  Effect.scoped(Effect.provide(effect, Collections.layer))

/** A search of the collection `name` with a `Collections` of its own (see `fresh`). */
const searchFresh = (name: string, query: string, limit = 5) =>
  fresh(Effect.flatMap(Collections, (c) => c.search(name, query, { limit })))

const fileOf = (name: string) => Effect.map(Home, (home) => collectionFile(home.root, name))

/**
 * The collection `name` holding `docs`, then `statements` run on its file as another program would: the file's path.
 */
const changedBehindOurBack = (name: string, statements: string) =>
  Effect.gen(function*() {
    const file = yield* fileOf(name)
    yield* fresh(Effect.flatMap(Collections, (c) => c.add(name, docs)))
    const db = new Database(file)
    db.exec(statements)
    db.close()
    return file
  })

const digest = (file: string) => createHash("sha256").update(Fs.readFileSync(file)).digest("hex")

const docs: ReadonlyArray<CorpusDocument> = [
  { id: "paris", title: "Paris", text: "Paris is the capital of France." },
  { id: "berlin", title: "Berlin", text: "Berlin is the capital of Germany." },
  { id: "rome", title: "Rome", text: "Rome is the capital of Italy." }
]

const many = (n: number): Array<CorpusDocument> =>
  Array.from({ length: n }, (_, i) => ({
    id: `d${i}`,
    title: `Document ${i}`,
    text: `Passage number ${i} mentions rivers, mountains and the city of ${i % 97} in some detail.`
  }))

/** Overwrites the pages from `fraction` of the file to its end with a byte pattern (page size from the header). */
const damagePages = (file: string, fraction: number) => {
  const fd = Fs.openSync(file, "r+")
  const header = Buffer.alloc(18)
  Fs.readSync(fd, header, 0, 18, 0)
  const pageSize = header.readUInt16BE(16) === 1 ? 65536 : header.readUInt16BE(16)
  const pages = Math.floor(Fs.fstatSync(fd).size / pageSize)
  const junk = Buffer.alloc(pageSize, 0xa5)
  for (let page = Math.max(1, Math.floor(pages * fraction)); page < pages; page++) {
    Fs.writeSync(fd, junk, 0, pageSize, page * pageSize)
  }
  Fs.closeSync(fd)
}

const inspect = (file: string) => {
  const db = new Database(file, { readonly: true })
  const found = {
    applicationId: Number(db.pragma("application_id", { simple: true })),
    migrations: db.prepare("SELECT migration_id FROM deepnote_migrations ORDER BY migration_id").pluck().all()
  }
  db.close()
  return found
}

const refusal = (error: { readonly _tag: string; readonly message: string }, file: string, words: string) => {
  assert.strictEqual(error._tag, "IndexError")
  assert.include(error.message, file)
  assert.include(error.message, words, error.message)
  assert.notInclude(error.message, "\n")
}

it.layer(TempHome)("collection files and migrations", (it) => {
  it.effect("a collection written before migrations opens without a rebuild and is migrated", () =>
    Effect.gen(function*() {
      const file = yield* fileOf("old")
      writeLegacyCollection(file)
      const info = yield* fresh(Effect.gen(function*() {
        const collections = yield* Collections
        const hits = yield* collections.search("old", "capital of Germany", { limit: 3 })
        assert.strictEqual(hits[0]!.id, "berlin")
        yield* collections.add("old", [{ id: "madrid", title: "Madrid", text: "Madrid is the capital of Spain." }])
        assert.strictEqual((yield* collections.search("old", "Spain", { limit: 1 }))[0]!.id, "madrid")
        return yield* collections.info("old")
      }))
      assert.strictEqual(info.documents, 4)
      assert.deepStrictEqual(info.settings, { stemming: "none" })
      assert.strictEqual(info.meta.created_at, "2026-01-02T03:04:05.000Z")
      assert.strictEqual(info.meta.schema_version, "5")
      assert.deepStrictEqual(info.files.map((f) => [f.file, f.done]), [["/corpus/old.jsonl", true]])
      assert.deepStrictEqual(inspect(file), { applicationId: collectionApplicationId, migrations: [1, 2, 3, 4, 5] })
    }))

  it.effect("a file at migration 1 is migrated to the current version, its passages kept", () =>
    Effect.gen(function*() {
      const file = yield* fileOf("v1")
      yield* fresh(Effect.flatMap(Collections, (c) => c.add("v1", docs)))
      const db = new Database(file)
      db.exec(
        "DELETE FROM deepnote_migrations WHERE migration_id >= 2; DROP TABLE IF EXISTS vectors; PRAGMA application_id = 0;"
      )
      db.exec("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
      db.close()
      assert.deepStrictEqual(inspect(file), { applicationId: 0, migrations: [1] })
      const info = yield* fresh(Effect.flatMap(Collections, (c) => c.info("v1")))
      assert.deepStrictEqual([info.documents, info.meta.schema_version], [3, "5"])
      assert.deepStrictEqual(inspect(file), { applicationId: collectionApplicationId, migrations: [1, 2, 3, 4, 5] })
    }))

  it.effect("a file at migration 3 forgets the content fingerprint it kept, which a build before 4 may have outlived", () =>
    Effect.gen(function*() {
      const file = yield* fileOf("v3")
      const computed = yield* fresh(Effect.gen(function*() {
        const collections = yield* Collections
        yield* collections.add("v3", docs)
        return yield* collections.fingerprint("v3")
      }))
      // as a build before migration 4 leaves it: passages changed after the fingerprint was kept, which it keeps
      const db = new Database(file)
      db.exec("DELETE FROM deepnote_migrations WHERE migration_id >= 4")
      db.exec("DELETE FROM meta WHERE key = 'oldest_schema'")
      db.exec("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
      db.exec("UPDATE meta SET value = 'sha256:outlived' WHERE key = 'content_fingerprint'")
      db.close()
      assert.deepStrictEqual(inspect(file).migrations, [1, 2, 3])
      const [info, fingerprint] = yield* fresh(Effect.gen(function*() {
        const collections = yield* Collections
        const info = yield* collections.info("v3")
        return [info, yield* collections.fingerprint("v3")] as const
      }))
      assert.strictEqual(info.meta.schema_version, "5")
      assert.isUndefined(info.meta["content_fingerprint"])
      assert.strictEqual(fingerprint, computed)
      assert.deepStrictEqual(inspect(file).migrations, [1, 2, 3, 4, 5])
    }))

  it.effect("a file written by a newer DeepNote is refused when it needs that build, and left as it was", () =>
    Effect.gen(function*() {
      const file = yield* changedBehindOurBack(
        "future",
        "INSERT INTO deepnote_migrations (migration_id, name) VALUES (99, 'from_the_future');" +
          "UPDATE meta SET value = '99' WHERE key = 'oldest_schema'"
      )
      const before = digest(file)
      const error = yield* Effect.flip(
        searchFresh("future", "Paris", 1)
      )
      refusal(error, file, "written by a newer DeepNote (collection schema 99, which needs a build that knows 99")
      assert.strictEqual(digest(file), before)

      // a file without `oldest_schema` (from a newer build that removed it) is refused too
      const bare = yield* changedBehindOurBack(
        "bare",
        "INSERT INTO deepnote_migrations (migration_id, name) VALUES (98, 'from_the_future');" +
          "DELETE FROM meta WHERE key = 'oldest_schema'"
      )
      refusal(
        yield* Effect.flip(searchFresh("bare", "Paris", 1)),
        bare,
        "newer DeepNote (collection schema 98; this build"
      )
    }))

  it.effect("a file a newer DeepNote migrated opens when older builds may use it, else is refused", () =>
    Effect.gen(function*() {
      // a newer build applies its migration 6, an index this build may live with, through the registry
      const file = yield* changedBehindOurBack("later", "")
      const anIndex = laterMigration(6, true, (sql) => sql`CREATE INDEX later_titles ON documents (title)`)
      yield* migrateAsFutureBuild(file, anIndex)
      const hits = yield* fresh(Effect.gen(function*() {
        const collections = yield* Collections
        yield* collections.add("later", [{ id: "madrid", title: "Madrid", text: "Madrid is the capital of Spain." }])
        return yield* collections.search("later", "capital of Spain", { limit: 1 })
      }))
      assert.strictEqual(hits[0]!.id, "madrid")
      assert.deepStrictEqual(inspect(file).migrations, [1, 2, 3, 4, 5, 6])
      const versions = () => {
        const db = new Database(file, { readonly: true })
        const query = "SELECT key, value FROM meta WHERE key IN ('schema_version', 'oldest_schema') ORDER BY key"
        const rows = db.prepare(query).all()
        db.close()
        return rows
      }
      assert.deepStrictEqual(versions(), [{ key: "oldest_schema", value: "5" }, { key: "schema_version", value: "6" }])

      // its next migration is one this build cannot live with: the registry records that builds must know it
      yield* migrateAsFutureBuild(
        file,
        anIndex,
        laterMigration(7, false, (sql) => sql`CREATE TABLE later_notes (rowid INTEGER PRIMARY KEY, note TEXT)`)
      )
      assert.deepStrictEqual(versions(), [{ key: "oldest_schema", value: "7" }, { key: "schema_version", value: "7" }])
      const before = digest(file)
      refusal(
        yield* Effect.flip(searchFresh("later", "Paris", 1)),
        file,
        "written by a newer DeepNote (collection schema 7, which needs a build that knows 7"
      )
      assert.strictEqual(digest(file), before)
    }))

  it.effect("another application's SQLite file or a non-SQLite file is refused and left as it was", () =>
    Effect.gen(function*() {
      const foreign = yield* fileOf("foreign")
      Fs.mkdirSync(Path.dirname(foreign), { recursive: true })
      const db = new Database(foreign)
      db.exec("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ada');")
      db.close()
      const junk = yield* fileOf("junk")
      Fs.writeFileSync(junk, "just some text, not a database\n")
      const before = [digest(foreign), digest(junk)]
      const [first, second, third] = yield* fresh(Effect.gen(function*() {
        const collections = yield* Collections
        return [
          yield* Effect.flip(collections.search("foreign", "ada", { limit: 1 })),
          yield* Effect.flip(collections.add("foreign", docs)),
          yield* Effect.flip(collections.search("junk", "text", { limit: 1 }))
        ] as const
      }))
      refusal(first, foreign, "not a DeepNote collection (tables: users)")
      refusal(second, foreign, "not a DeepNote collection")
      refusal(third, junk, "not an SQLite database")
      assert.deepStrictEqual([digest(foreign), digest(junk)], before)
    }))

  it.effect("a collection damaged where its schema lives is refused on opening", () =>
    Effect.gen(function*() {
      const file = yield* fileOf("broken")
      yield* fresh(Effect.flatMap(Collections, (c) => c.add("broken", many(2000))))
      damagePages(file, 0)
      const error = yield* Effect.flip(
        searchFresh("broken", "rivers")
      )
      refusal(error, file, "the collection file is corrupted")
    }))

  it.effect("a collection with damaged data pages: `index` refuses before writing anything", () =>
    Effect.gen(function*() {
      const home = yield* Home
      const file = yield* fileOf("damaged")
      yield* fresh(Effect.flatMap(Collections, (c) => c.add("damaged", many(3000))))
      damagePages(file, 0.6)
      const before = digest(file)
      const corpus = headOf("corpus/en-multihop.jsonl", 50, home.root)
      const error = yield* Effect.flip(fresh(Effect.flatMap(Collections, (c) => c.index("damaged", [corpus]))))
      refusal(error, file, "the collection file is corrupted (integrity check")
      assert.strictEqual(digest(file), before, "nothing was written")
      assert.isFalse(Fs.existsSync(`${file}-wal`) && Fs.statSync(`${file}-wal`).size > 0, "no log frames either")
    }))

  it.effect("a passage another program stored as bytes, not text: a search fails naming it, no stack trace", () =>
    Effect.gen(function*() {
      const file = yield* changedBehindOurBack("bytes", "UPDATE documents SET title = X'00ff' WHERE id = 'rome'")
      const found = yield* searchFresh("bytes", "Paris France")
      assert.deepStrictEqual(found.map((d) => d.id), ["paris"], "rows that decode are unaffected")
      const error = yield* Effect.flip(
        searchFresh("bytes", "capital of Italy")
      )
      refusal(error, file, "the collection file is corrupted (searching: a stored row does not decode")
      // the first issue, on the message's one line: the row's field and what it holds
      assert.include(error.message, "does not decode: 0.title: Expected string, actual")
    }))
})
