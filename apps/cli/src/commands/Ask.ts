import { AnswerRecord, retrieverOf } from "@deepnote-rag/core"
import { Collections } from "@deepnote-rag/retrieval"
import { Args, Command, Options } from "@effect/cli"
import { FileSystem } from "@effect/platform"
import { Console, Effect, Layer, Option, Schema } from "effect"
import { knobOptions } from "../config/Knobs.js"
import { llmOptions } from "../engine/LlmOptions.js"
import { meiliForConfig, meiliOptions } from "../engine/MeiliOptions.js"
import { CommandFailed } from "../Errors.js"
import { liveAskLayer } from "../render/LiveAsk.js"
import { renderResult } from "../render/RenderResult.js"
import { StandardStreams } from "../render/StandardStreams.js"
import { tracedAsk } from "../telemetry/Traced.js"
import { askTraceOptions } from "../telemetry/TraceOptions.js"
import { askOnce, resolveConfigAndCollection } from "./AskSupport.js"
import { collectionOption, configFileOption, homeLayer, homeOption, jsonOption } from "./Common.js"
import { outputFileOf } from "./OutputFile.js"

const question = Args.text({ name: "question" }).pipe(Args.withDescription("the question to answer (quote it)"))
const save = Options.file("save", { exists: "either" }).pipe(
  Options.withDescription("also write the JSON result to this file (read it back with `deepnote inspect FILE`)"),
  Options.optional
)

/** `deepnote ask "QUESTION"`: answer one question and print the answer, the best note and the trace. */
export const askCommand = Command.make(
  "ask",
  {
    question,
    collection: collectionOption,
    knobs: knobOptions,
    configFile: configFileOption,
    json: jsonOption,
    save,
    home: homeOption,
    llm: llmOptions,
    meili: meiliOptions,
    tracing: askTraceOptions
  },
  (opts) =>
    Effect.gen(function*() {
      const { collection, config, file } = yield* resolveConfigAndCollection(opts)
      const saveTo = yield* Effect.transposeMapOption(opts.save, (path) => outputFileOf("save", path))
      const meili = yield* meiliForConfig(
        retrieverOf(config),
        opts.meili,
        file?.meili,
        Option.getOrUndefined(opts.configFile)
      )
      // without --json, the steps and the answer's tokens show on stderr as they happen; stdout keeps the final block
      const live = opts.json ? undefined : liveAskLayer((yield* StandardStreams).writeStderr)
      const record = yield* askOnce({
        text: opts.question,
        config,
        collection,
        llm: opts.llm,
        llmFromFile: file?.llm,
        meili,
        live
      }).pipe(tracedAsk(opts.tracing))
      const json = JSON.stringify(Schema.encodeSync(AnswerRecord)(record), null, 2)
      if (Option.isSome(saveTo)) {
        const fs = yield* FileSystem.FileSystem
        yield* fs.writeFileString(saveTo.value, `${json}\n`).pipe(
          Effect.mapError((e) => new CommandFailed({ message: `cannot write ${saveTo.value}: ${e.message}` }))
        )
      }
      yield* Console.log(
        opts.json ? json : renderResult(record.result, { engine: record.engine, collection: record.collection })
      )
    }).pipe(Effect.provide(Collections.layer.pipe(Layer.provideMerge(homeLayer(opts.home)))))
).pipe(
  Command.withDescription(
    "Answer one question with DeepNote and print the answer, the best note and the step-by-step trace."
  )
)
