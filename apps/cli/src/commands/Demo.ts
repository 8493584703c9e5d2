import { Collections } from "@deepnote-rag/retrieval"
import { RunStore } from "@deepnote-rag/store"
import { Command, Options } from "@effect/cli"
import { FileSystem } from "@effect/platform"
import { Chunk, Console, Effect, Option, Schema, Stream } from "effect"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { CommandFailed } from "../Errors.js"
import { renderResult } from "../render/RenderResult.js"
import { demoItemId, recordDemoRun } from "../runs/DemoRun.js"
import { runServices, storeFailed } from "../runs/RunServices.js"
import { homeOption } from "./Common.js"
import { renderSummary } from "./Index.js"

const DemoQuestions = Schema.Array(
  Schema.Struct({ question: Schema.String, kind: Schema.String, gold: Schema.optional(Schema.String) })
)

/** The bundled sample (examples/sample), found by walking up from this module (works from src and from dist). */
const findSample = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  let dir = Path.dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 8; i++) {
    const candidate = Path.join(dir, "examples", "sample")
    if (yield* fs.exists(candidate).pipe(Effect.orElseSucceed(() => false))) return candidate
    dir = Path.dirname(dir)
  }
  return yield* new CommandFailed({
    message: "the bundled sample (examples/sample) was not found next to this installation"
  })
})

const sampleDir = Options.directory("sample").pipe(
  Options.withDescription(
    "sample directory with corpus/*.jsonl and demo-questions.json (default: the bundled examples/sample)"
  ),
  Options.optional
)

/** `deepnote demo`: index the bundled sample, answer its three demo questions as a run, print each trace. */
export const demoCommand = Command.make(
  "demo",
  { home: homeOption, sample: sampleDir },
  (opts) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = Option.isSome(opts.sample) ? opts.sample.value : yield* findSample
      const corpusDir = Path.join(dir, "corpus")
      const files = (yield* fs.readDirectory(corpusDir).pipe(Effect.mapError((e) =>
        new CommandFailed({ message: `${corpusDir}: ${e.message}` })
      )))
        .filter((f) =>
          f.endsWith(".jsonl")
        ).sort().map((f) => Path.join(corpusDir, f))
      const collections = yield* Collections
      yield* Console.log(
        `DeepNote demo · engine: extractive (an offline, non-neural baseline — real quality needs an LLM server)\n`
      )
      const summary = yield* collections.index("sample", files).pipe(
        Effect.mapError((e) => new CommandFailed({ message: e.message }))
      )
      yield* Console.log(renderSummary(summary))
      const questions = yield* fs.readFileString(Path.join(dir, "demo-questions.json")).pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.parseJson(DemoQuestions))),
        Effect.mapError((e) => new CommandFailed({ message: `demo-questions.json: ${e.message}` }))
      )
      const run = yield* recordDemoRun(questions, opts.home)
      const results = Chunk.toReadonlyArray(yield* Stream.runCollect((yield* RunStore).results(run)))
      for (const [i, q] of questions.entries()) {
        yield* Console.log(
          `\n${"═".repeat(100)}\nDemo ${i + 1}/${questions.length} · ${q.kind}${
            q.gold ? ` · gold answer: ${q.gold}` : ""
          }\n`
        )
        const record = results.find((r) => r.itemId === demoItemId(i))
        if (record?.result !== undefined) {
          yield* Console.log(renderResult(record.result, { engine: "extractive", collection: "sample" }))
        } else yield* Console.log(`failed: ${record?.error?.message ?? "not answered"}`)
      }
      yield* Console.log(
        `\n${
          "═".repeat(100)
        }\nNext: \`deepnote index your.jsonl --collection mine\` then \`deepnote ask "…" --collection mine\`; add \`--engine llm --llm-url http://HOST:8000/v1\` for a vLLM server.`
      )
      yield* Console.log(
        `Look at it: deepnote ui ${run}${Option.isSome(opts.home) ? ` --home ${opts.home.value}` : ""}`
      )
    }).pipe(
      Effect.catchTags({ StoreError: storeFailed }),
      Effect.provide(runServices(opts.home))
    )
).pipe(
  Command.withDescription(
    "Index the bundled sample corpus and answer three sample questions (English bridge, yes/no comparison, Chinese) as a run labelled `demo`, printing each trace; `deepnote ui` shows it."
  )
)
