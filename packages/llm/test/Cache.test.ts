import { LlmCache } from "@deepnote-rag/llm"
import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Logger, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"

const reply = { texts: ["hello"], finishReason: "stop", model: "m", promptTokens: 3, completionTokens: 1 }

const tempDir = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "llm-cache-" }))
  .pipe(
    Effect.provide(NodeFileSystem.layer)
  )

/** Runs `effect` with the cache at `file`, collecting what it logs. */
const withCache = <A, E>(file: string, effect: Effect.Effect<A, E, LlmCache>) => {
  const logs: Array<string> = []
  const collect = Logger.make(({ logLevel, message }) => {
    logs.push(`${logLevel.label} ${Array.isArray(message) ? message.join(" ") : String(message)}`)
  })
  return Effect.scoped(Effect.provide(effect, LlmCache.layer({ file }))).pipe(
    Effect.provide(Logger.replace(Logger.defaultLogger, collect)),
    Effect.map((a) => ({ result: a, logs }))
  )
}

const roundTrip = Effect.gen(function*() {
  const cache = yield* LlmCache
  yield* cache.put("k", reply)
  return { hit: yield* cache.get("k"), enabled: cache.enabled }
})

const entries = (dir: string) => Fs.readdirSync(dir).sort()

describe("LlmCache", () => {
  it.scoped("SQLite: stores, reads back after reopening, WAL mode", () =>
    Effect.gen(function*() {
      const file = Path.join(yield* tempDir, "nested", "c.sqlite")
      yield* withCache(
        file,
        Effect.gen(function*() {
          const cache = yield* LlmCache
          yield* cache.put("k", reply)
          yield* cache.put("k", { ...reply, texts: ["other"] })
          assert.deepStrictEqual(yield* cache.get("k"), Option.some(reply))
        })
      )
      const { logs } = yield* withCache(
        file,
        Effect.gen(function*() {
          const cache = yield* LlmCache
          assert.deepStrictEqual(yield* cache.get("k"), Option.some(reply))
          assert.isTrue(Option.isNone(yield* cache.get("missing")))
          assert.strictEqual(yield* cache.size, 1)
        })
      )
      assert.deepStrictEqual(logs.filter((l) => !l.startsWith("DEBUG")), [])
      const db = new Database(file, { readonly: true })
      assert.strictEqual(db.pragma("journal_mode", { simple: true }), "wal")
      db.close()
    }))

  it.effect("disabled: never hits", () =>
    Effect.gen(function*() {
      const cache = yield* LlmCache
      yield* cache.put("k", reply)
      assert.isTrue(Option.isNone(yield* cache.get("k")))
      assert.isFalse(cache.enabled)
    }).pipe(Effect.provide(LlmCache.layer({ file: undefined }))))

  it.effect("layerTest: an in-memory cache", () =>
    Effect.gen(function*() {
      const { enabled, hit } = yield* roundTrip
      assert.isTrue(enabled)
      assert.deepStrictEqual(hit, Option.some(reply))
    }).pipe(Effect.provide(LlmCache.layerTest)))

  it.scoped("a cache file from before migrations keeps its entries", () =>
    Effect.gen(function*() {
      const file = Path.join(yield* tempDir, "old.sqlite")
      const db = new Database(file)
      db.pragma("journal_mode = WAL")
      db.exec(`CREATE TABLE IF NOT EXISTS llm_cache (
        key TEXT PRIMARY KEY,
        model TEXT NOT NULL,
        reply TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) WITHOUT ROWID`)
      db.prepare("INSERT INTO llm_cache VALUES (?, ?, ?, ?)").run("old", "m", JSON.stringify(reply), 1)
      db.close()
      const { logs, result } = yield* withCache(file, Effect.flatMap(LlmCache, (cache) => cache.get("old")))
      assert.deepStrictEqual(result, Option.some(reply))
      assert.deepStrictEqual(logs.filter((l) => l.startsWith("WARN")), [])
      const after = new Database(file, { readonly: true })
      assert.deepStrictEqual(after.prepare("SELECT migration_id FROM deepnote_migrations").pluck().all(), [1])
      after.close()
    }))

  for (
    const [what, content] of [
      ["a file that is not SQLite", Buffer.from("\u007fELF\u0002\u0001\u0001\u0000 not a database\n".repeat(200))],
      [
        "an SQLite file damaged after its header",
        Buffer.concat([Buffer.from("SQLite format 3\u0000"), Buffer.alloc(8192, 0xa5)])
      ]
    ] as const
  ) {
    it.scoped(`${what} is moved aside with one warning and an empty cache starts`, () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const file = Path.join(dir, "cache.sqlite")
        Fs.writeFileSync(file, content)
        const { logs, result } = yield* withCache(file, roundTrip)
        assert.isTrue(result.enabled)
        assert.deepStrictEqual(result.hit, Option.some(reply))
        const warnings = logs.filter((l) => l.startsWith("WARN"))
        assert.strictEqual(warnings.length, 1, logs.join("\n"))
        assert.include(warnings[0]!, file)
        assert.include(warnings[0]!, "moved it to")
        assert.notInclude(warnings[0]!, "\n", "one line, no stack trace")
        const aside = entries(dir).filter((f) => f.startsWith("cache.sqlite.corrupt-"))
        assert.strictEqual(aside.length, 1)
        assert.deepStrictEqual(Fs.readFileSync(Path.join(dir, aside[0]!)), content, "the damaged file is kept")
      }))
  }

  it.scoped("another application's SQLite file is left alone and caching is off", () =>
    Effect.gen(function*() {
      const file = Path.join(yield* tempDir, "store.sqlite")
      const db = new Database(file)
      db.exec("CREATE TABLE runs (id TEXT)")
      db.close()
      const before = Fs.readFileSync(file)
      const { logs, result } = yield* withCache(file, roundTrip)
      assert.isFalse(result.enabled)
      assert.isTrue(Option.isNone(result.hit))
      assert.strictEqual(logs.filter((l) => l.startsWith("WARN")).length, 1)
      assert.deepStrictEqual(Fs.readFileSync(file), before)
    }))

  it.scoped("a read failure mid-run is a miss, logged once", () =>
    Effect.gen(function*() {
      const file = Path.join(yield* tempDir, "c.sqlite")
      const { logs } = yield* withCache(
        file,
        Effect.gen(function*() {
          const cache = yield* LlmCache
          yield* cache.put("k", reply)
          const other = new Database(file)
          other.exec("DROP TABLE llm_cache")
          other.close()
          assert.isTrue(Option.isNone(yield* cache.get("k")))
          assert.isTrue(Option.isNone(yield* cache.get("k")))
          yield* cache.put("k", reply)
        })
      )
      const warnings = logs.filter((l) => l.startsWith("WARN"))
      assert.deepStrictEqual(warnings.map((w) => /: (\w+) failed/u.exec(w)?.[1]), ["read", "write"])
    }))
})
