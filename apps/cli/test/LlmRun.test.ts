import { start } from "@deepnote-rag/llm-sim"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { indexedHome, llmArgs, runCli, sampleRunArgs } from "./RunCli.js"

const ExportLine = Schema.Struct({
  engine: Schema.Struct({
    models: Schema.Record({ key: Schema.String, value: Schema.String }),
    servers: Schema.Array(Schema.Struct({ endpoint: Schema.String, maxModelLen: Schema.optional(Schema.Number) }))
  })
})

describe("an LLM run records the models and servers it used (two simulators)", () => {
  it.scopedLive(
    "judge calls go to the one server with the judge's model; eval and export name models and servers",
    () =>
      Effect.gen(function*() {
        const general = yield* start({ model: "general", maxModelLen: 16384 })
        const both = yield* start({ model: ["general", "judge-model"], maxModelLen: 32768 })
        const home = yield* indexedHome
        const args = sampleRunArgs(
          home,
          "--limit",
          "3",
          ...llmArgs([general.url, both.url]),
          "--max-step",
          "1",
          "--max-failure",
          "1",
          "--quiet"
        )
        const run = yield* runCli([...args, "--role", "judge.model=judge-model"])
        assert.strictEqual(run.code, 0, run.stderr)
        const runId = /run (\S+):/.exec(run.stdout)?.[1] ?? ""
        assert.isAbove(both.metrics.byRole["judge"] ?? 0, 0)
        assert.isUndefined(general.metrics.byRole["judge"], "no judge call reached the server without its model")

        const evaluated = yield* runCli(["eval", runId, "--home", home, "--format", "json"])
        assert.strictEqual(evaluated.code, 0, evaluated.stderr)
        const title = (JSON.parse(evaluated.stdout) as { title: string }).title
        assert.include(title, "judge=judge-model")
        assert.include(title, "init=general")
        assert.include(title, `${both.url} (max_model_len 32768)`)
        assert.include(title, `${general.url} (max_model_len 16384)`)

        const exported = yield* runCli(["export", runId, "--home", home])
        assert.strictEqual(exported.code, 0, exported.stderr)
        const line = Schema.decodeUnknownSync(Schema.parseJson(ExportLine))(exported.stdout.split("\n")[0])
        assert.strictEqual(line.engine.models["judge"], "judge-model")
        assert.strictEqual(line.engine.models["answer"], "general", "discovered (the first served id), not configured")
        assert.deepStrictEqual(
          line.engine.servers.map((s) => [s.endpoint, s.maxModelLen]).sort(),
          [[general.url, 16384], [both.url, 32768]].sort()
        )

        const missing = yield* runCli([...args, "--role", "judge.model=nowhere"])
        assert.strictEqual(missing.code, 1, missing.stderr)
        assert.include(missing.stderr, `no LLM endpoint serves the model "nowhere"`)
        assert.include(missing.stderr, `${both.url} serves "general", "judge-model"`)
        assert.notInclude(missing.stdout, "questions", "no run was created")
      }),
    120_000
  )
})
