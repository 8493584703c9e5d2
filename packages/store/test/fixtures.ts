import { Answer, defaultRunConfig, PipelineResult, Question } from "@deepnote/core"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { RunManifest } from "../src/index.js"

/** A fresh directory under the OS temp dir, removed when the scope closes. */
export const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "deepnote-store-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

export const manifest = (overrides: Partial<ConstructorParameters<typeof RunManifest>[0]> = {}) =>
  new RunManifest({
    config: defaultRunConfig,
    configHash: "cfg-hash",
    codeVersion: "test",
    dataset: { path: "data/q.jsonl", hash: "data-hash" },
    ...overrides
  })

export const question = (id: string, text = `question ${id}?`) => new Question({ id, text, answers: [`answer ${id}`] })

export const result = (q: Question, answer = `answer ${q.id}`) =>
  new PipelineResult({
    questionId: q.id,
    question: q.text,
    profile: "deepnote",
    answer: new Answer({ text: answer }),
    stopReason: "max-step",
    trace: { queries: [], passages: [], notes: [] },
    counters: {
      llm: { init: 1, plan: 0, update: 0, judge: 0, answer: 1, total: 2 },
      retrievals: 1,
      steps: 0,
      failures: 0,
      uniquePassages: 0
    },
    elapsedMs: 12
  })

/** Bytes and modification time of a file, to prove it was not touched. */
export const fingerprint = (file: string) => {
  const stat = Fs.statSync(file)
  return { bytes: Fs.readFileSync(file).toString("base64"), mtimeMs: stat.mtimeMs, size: stat.size }
}
