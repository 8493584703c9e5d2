import { LlmCache } from "@deepnote/llm"
import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Option } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

const reply = { texts: ["hello"], finishReason: "stop", model: "m", promptTokens: 3, completionTokens: 1 }

describe("LlmCache", () => {
  it.scoped("SQLite: stores, reads back after reopening, WAL mode", () =>
    Effect.gen(function*() {
      const file = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "cache-")), "nested", "c.sqlite")
      yield* Effect.scoped(
        Effect.gen(function*() {
          const cache = yield* LlmCache
          yield* cache.put("k", reply)
          yield* cache.put("k", { ...reply, texts: ["other"] })
          assert.deepStrictEqual(yield* cache.get("k"), Option.some(reply))
        }).pipe(Effect.provide(LlmCache.layerSqlite(file)))
      )
      yield* Effect.gen(function*() {
        const cache = yield* LlmCache
        assert.deepStrictEqual(yield* cache.get("k"), Option.some(reply))
        assert.isTrue(Option.isNone(yield* cache.get("missing")))
        assert.strictEqual(yield* cache.size, 1)
      }).pipe(Effect.provide(LlmCache.layerSqlite(file)))
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
    }).pipe(Effect.provide(LlmCache.layerDisabled)))
})
