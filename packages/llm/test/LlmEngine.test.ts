import { Home } from "@deepnote-rag/core"
import { LlmCache, LlmEngine, LlmSettings, type LlmSettingsInput, LlmSettingsSchema } from "@deepnote-rag/llm"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Schema } from "effect"
import * as Path from "node:path"

/** Nothing listens there; building the engine opens no connection (health probes fail quietly in the background). */
const endpoints: LlmSettingsInput["endpoints"] = [{ url: "http://127.0.0.1:9/v1" }]

const settings = (input: Partial<LlmSettingsInput> = {}) =>
  Schema.decodeUnknownSync(LlmSettingsSchema)({ endpoints, ...input })

/** Builds the LLM engine over `home` and reports its cache. */
const cacheOf = (home: string, input: Partial<LlmSettingsInput> = {}) =>
  Effect.scoped(
    Effect.flatMap(
      Layer.build(
        LlmEngine.layer.pipe(Layer.provide(LlmSettings.layer({ endpoints, ...input })), Layer.provide(Home.layer(home)))
      ),
      (context) =>
        Effect.flatMap(LlmCache, (cache) => cache.size.pipe(Effect.as(cache.enabled))).pipe(
          Effect.provide(context)
        )
    )
  )

describe("LlmEngine: the response cache's file", () => {
  it("cacheFile: <home>/llm-cache.sqlite by default, the settings' file when given, none when off", () => {
    const home = Option.some(Home.make("/data/deepnote"))
    assert.strictEqual(LlmEngine.cacheFile(settings(), home), "/data/deepnote/llm-cache.sqlite")
    assert.strictEqual(LlmEngine.cacheFile(settings({ cacheFile: "/tmp/c.sqlite" }), home), "/tmp/c.sqlite")
    assert.isUndefined(LlmEngine.cacheFile(settings({ cache: false }), home))
    assert.strictEqual(LlmEngine.cacheFile(settings(), Option.none()), Path.resolve(".deepnote", "llm-cache.sqlite"))
  })

  it.scoped("the engine opens the cache under the Home in context, and none when the settings turn it off", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const on = yield* fs.makeTempDirectoryScoped()
      assert.isTrue(yield* cacheOf(on))
      assert.isTrue(yield* fs.exists(Path.join(on, "llm-cache.sqlite")))
      const off = yield* fs.makeTempDirectoryScoped()
      assert.isFalse(yield* cacheOf(off, { cache: false }))
      assert.deepStrictEqual(yield* fs.readDirectory(off), [])
    }).pipe(Effect.provide(NodeContext.layer)))
})
