import { defaultRunConfig, Home } from "@deepnote-rag/core"
import { promptSetHash } from "@deepnote-rag/engine"
import { Collections } from "@deepnote-rag/retrieval"
import { createRun } from "@deepnote-rag/runs"
import { FileSystem } from "@effect/platform"
import { Effect, Option } from "effect"
import * as Path from "node:path"
import { CommandFailed } from "../Errors.js"
import { executeWithProgress } from "./ExecuteWithProgress.js"
import { runEngineLayer } from "./RunEngine.js"

/** A demo question as `demo-questions.json` lists it. */
export interface DemoQuestion {
  readonly question: string
  readonly gold?: string | undefined
}

/** The item id of the demo's `i`-th question (0-based). */
export const demoItemId = (i: number) => `demo-${i + 1}`

/**
 * Records the demo's questions as a run labelled `demo` (offline extractive engine, collection `sample`) and executes
 * it with the machinery of `deepnote run`, so `deepnote ui` shows it afterwards. The questions are written as a plain
 * JSONL dataset under `<home>/demo/` first: the manifest names that file and its hash, as for any run.
 */
export const recordDemoRun = (questions: ReadonlyArray<DemoQuestion>, home: Option.Option<string>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = Path.join((yield* Home).root, "demo")
    const dataset = Path.join(dir, "questions.jsonl")
    const lines = questions.map((q, i) =>
      JSON.stringify({ id: demoItemId(i), question: q.question, answers: q.gold === undefined ? [] : [q.gold] })
    )
    yield* fs.makeDirectory(dir, { recursive: true }).pipe(
      Effect.zipRight(fs.writeFileString(dataset, `${lines.join("\n")}\n`)),
      Effect.mapError((e) => new CommandFailed({ message: `${dataset}: ${e.message}` }))
    )
    const config = defaultRunConfig
    const fingerprint = yield* (yield* Collections).fingerprint("sample").pipe(
      Effect.mapError((e) => new CommandFailed({ message: e.message }))
    )
    const { run } = yield* createRun({
      dataset,
      format: "plain",
      config,
      collection: "sample",
      promptSetHash: promptSetHash(config),
      label: "demo",
      concurrency: questions.length,
      collectionFingerprint: fingerprint
    }).pipe(Effect.mapError((e) => new CommandFailed({ message: e.message })))
    const engine = runEngineLayer(
      config,
      "sample",
      { urls: [], apiKey: Option.none(), noCache: false },
      undefined,
      home
    )
    yield* executeWithProgress(run.id, engine, {
      quiet: true,
      concurrency: questions.length,
      retryFailed: false,
      label: "cli demo"
    })
    return run.id
  })
