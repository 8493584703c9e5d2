import { Home } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Redacted, Schema } from "effect"
import * as Path from "node:path"
import { parseStoreUrl, RunStore, Store, StoreConfig, StoreUrl } from "../src/index.js"
import { manifest } from "./fixtures.js"

const configured = (env: Record<string, string>) =>
  Effect.flatMap(StoreConfig, (settings) => Effect.succeed(settings.url)).pipe(
    Effect.provide(StoreConfig.layerConfig.pipe(Layer.provide(Home.layer("/data/home")))),
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
  )

describe("StoreUrl", () => {
  it.effect("parses sqlite:PATH, bare paths, :memory: and Postgres URLs", () =>
    Effect.gen(function*() {
      const sqlite = yield* parseStoreUrl("sqlite:/data/x.sqlite")
      assert.deepStrictEqual([sqlite._tag, sqlite.display], ["Sqlite", "/data/x.sqlite"])
      const bare = yield* parseStoreUrl("rel/x.sqlite")
      assert.deepStrictEqual([bare._tag, bare.display], ["Sqlite", Path.resolve("rel/x.sqlite")])
      assert.strictEqual((yield* parseStoreUrl("sqlite::memory:")).display, ":memory:")
      for (const scheme of ["postgres", "postgresql"]) {
        const pg = yield* parseStoreUrl(`${scheme}://deepnote:s3cret@db.example:5433/runs?sslmode=require`)
        assert.strictEqual(pg._tag, "Postgres")
        assert.strictEqual(pg.display, `${scheme}://deepnote:***@db.example:5433/runs?sslmode=require`)
        if (pg._tag === "Postgres") {
          assert.include(Redacted.value(pg.url), "s3cret")
          assert.notInclude(String(pg.url), "s3cret")
        }
      }
      const decoded = Schema.decodeUnknownSync(StoreUrl)("postgres://u@h/db")
      assert.strictEqual(Schema.encodeSync(StoreUrl)(decoded), "postgres://u@h/db")
    }))

  it.effect("refuses unknown schemes and malformed URLs with a usage error naming the accepted forms", () =>
    Effect.gen(function*() {
      const unknown = yield* Effect.flip(parseStoreUrl("mysql://root:hunter2@h/db"))
      assert.strictEqual(unknown._tag, "InvalidStoreUrl")
      assert.include(unknown.message, `unsupported store URL scheme "mysql:"`)
      assert.include(unknown.message, "sqlite:PATH")
      assert.include(unknown.message, "postgres://")
      assert.notInclude(unknown.message, "hunter2")
      for (const bad of ["", "sqlite:", "postgres://u:hunter2@/db"]) {
        const error = yield* Effect.flip(parseStoreUrl(bad))
        assert.strictEqual(error._tag, "InvalidStoreUrl")
        assert.notInclude(error.message, "hunter2")
      }
      assert.isTrue(Schema.decodeUnknownEither(StoreUrl)("ftp://x")._tag === "Left")
    }))

  it.effect("StoreConfig reads DEEPNOTE_STORE, else uses <home>/deepnote.sqlite", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* configured({})).display, "/data/home/deepnote.sqlite")
      assert.strictEqual((yield* configured({ DEEPNOTE_STORE: "" })).display, "/data/home/deepnote.sqlite")
      assert.strictEqual((yield* configured({ DEEPNOTE_STORE: "sqlite:/elsewhere.db" })).display, "/elsewhere.db")
      const pg = yield* configured({ DEEPNOTE_STORE: "postgres://a:b@h:1/d" })
      assert.strictEqual(pg.display, "postgres://a:***@h:1/d")
      const error = yield* Effect.flip(configured({ DEEPNOTE_STORE: "ftp://h/x" }))
      assert.strictEqual(error._tag, "InvalidStoreUrl")
      assert.match(error.message, /^DEEPNOTE_STORE: unsupported store URL scheme "ftp:"/)
    }))

  it.effect("Store.layer opens an in-memory store from sqlite::memory:", () =>
    Effect.gen(function*() {
      const run = yield* (yield* RunStore).createRun({ manifest: manifest(), id: "r-mem" })
      assert.strictEqual(run.id, "r-mem")
    }).pipe(Effect.provide(Store.layer({ url: "sqlite::memory:" }))))
})
