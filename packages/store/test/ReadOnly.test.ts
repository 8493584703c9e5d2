import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { RunStore, Store } from "../src/index.js"
import { fingerprint, manifest, question, tempDir } from "./fixtures.js"
import { writeLegacyStore } from "./legacyStore.js"

/**
 * Runs an effect as the user `nobody`: tests run as root, for whom every file is writable. The effective user id is
 * what the kernel checks when a file is opened, so SQLite sees the permissions a normal user would.
 */
const withoutRoot = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  process.geteuid?.() === 0
    ? Effect.acquireUseRelease(
      Effect.sync(() => process.seteuid?.(65534)),
      () => effect,
      () => Effect.sync(() => process.seteuid?.(0))
    )
    : effect

/** A store with one run and two items in `dir`. */
const seeded = (dir: string) =>
  Effect.gen(function*() {
    const filename = Path.join(dir, "deepnote.sqlite")
    yield* Effect.gen(function*() {
      const store = yield* RunStore
      yield* store.createRun({ manifest: manifest(), id: "r-ro" })
      yield* store.addItems("r-ro", [question("q1"), question("q2")])
    }).pipe(Effect.provide(Store.layer({ url: filename })))
    return filename
  })

describe("read-only stores (SQLite)", () => {
  it.scopedLive("a store file this process cannot write is opened read-only: reads work, writes fail", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const filename = yield* seeded(dir)
      Fs.chmodSync(dir, 0o777)
      Fs.chmodSync(filename, 0o444)
      const before = fingerprint(filename)
      yield* withoutRoot(
        Effect.gen(function*() {
          const store = yield* RunStore
          assert.strictEqual((yield* store.getRun("r-ro")).counts.total, 2)
          assert.deepStrictEqual((yield* store.pendingItems("r-ro")).map((i) => i.itemId), ["q1", "q2"])
          const error = yield* Effect.flip(store.createRun({ manifest: manifest() }))
          assert.strictEqual(error._tag, "StoreError")
          assert.include(error.message, "readonly")
        }).pipe(Effect.provide(Store.layer({ url: filename })))
      )
      assert.deepStrictEqual(fingerprint(filename), before)

      const legacy = Path.join(dir, "legacy.sqlite")
      writeLegacyStore(legacy)
      Fs.chmodSync(legacy, 0o444)
      const old = yield* withoutRoot(Effect.flip(Layer.build(Store.layer({ url: legacy })).pipe(Effect.scoped)))
      assert.include(old.message, `${legacy} is read-only and has schema version 3`)
    }))

  it.scopedLive("a store in a read-only home is reported as read-only, not as a foreign file", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const filename = yield* seeded(dir)
      Fs.chmodSync(dir, 0o555)
      const before = fingerprint(filename)
      const error = yield* withoutRoot(Effect.flip(Layer.build(Store.layer({ url: filename })).pipe(Effect.scoped)))
      Fs.chmodSync(dir, 0o700)
      assert.strictEqual(error._tag, "StoreError")
      assert.include(error.message, `${filename} is read-only`)
      assert.notInclude(error.message, "not a DeepNote store")
      assert.deepStrictEqual(fingerprint(filename), before)

      const fresh = Path.join(dir, "none", "deepnote.sqlite")
      Fs.mkdirSync(Path.dirname(fresh))
      Fs.chmodSync(Path.dirname(fresh), 0o555)
      Fs.chmodSync(dir, 0o755)
      const cannot = yield* withoutRoot(Effect.flip(Layer.build(Store.layer({ url: fresh })).pipe(Effect.scoped)))
      assert.include(cannot.message, `cannot create the store ${fresh}: is ${Path.dirname(fresh)} read-only?`)
    }))
})
