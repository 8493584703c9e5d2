import {
  Answer,
  Answerer,
  type AnswerInput,
  answerQuestion,
  type CompareInput,
  Judge,
  Note,
  type NoteInitInput,
  type NoteUpdateInput,
  NoteWriter,
  Passage,
  type PlanInput,
  QueryPlanner,
  type Question,
  type RetrievalRequest,
  Retriever,
  RunConfig,
  Verdict
} from "@deepnote-rag/core"
import { Effect, Layer, Schema } from "effect"

/** What the scripted roles saw, in call order. */
export interface Calls {
  readonly retrievals: Array<RetrievalRequest>
  readonly inits: Array<NoteInitInput>
  readonly updates: Array<NoteUpdateInput>
  readonly plans: Array<PlanInput>
  readonly compares: Array<CompareInput>
  readonly answers: Array<AnswerInput>
}

export interface Script {
  /** Verdicts returned by the judge, in order. */
  readonly verdicts: ReadonlyArray<boolean>
  /** Planner outputs per step (queries); default: two fresh queries per step. */
  readonly plans?: ReadonlyArray<ReadonlyArray<string>>
  /** Passages returned per retrieval call; default: `topK` fresh passages per call. */
  readonly retrievals?: ReadonlyArray<ReadonlyArray<string>>
}

const passage = (id: string) =>
  new Passage({ id, title: `Title ${id}`, text: `Text of ${id}.`, source: "test", score: 1 })

/** Role layers that follow a script and record every call. */
export const scripted = (script: Script) => {
  const calls: Calls = { retrievals: [], inits: [], updates: [], plans: [], compares: [], answers: [] }
  let fresh = 0
  const layer = Layer.mergeAll(
    Retriever.layerTest({
      search: (request) =>
        Effect.sync(() => {
          const index = calls.retrievals.length
          calls.retrievals.push(request)
          const ids = script.retrievals?.[index] ??
            Array.from({ length: request.topK }, () => `p${fresh++}`)
          return ids.map(passage).filter((p) => !request.exclude.has(p.id))
        })
    }),
    NoteWriter.layerTest({
      init: (input) => Effect.sync(() => (calls.inits.push(input), new Note({ text: "note-0" }))),
      update: (input) =>
        Effect.sync(() => (calls.updates.push(input), new Note({ text: `note-${input.context.step}\nline` })))
    }),
    QueryPlanner.layerTest({
      plan: (input) =>
        Effect.sync(() => {
          const index = calls.plans.length
          calls.plans.push(input)
          const queries = script.plans?.[index] ?? [`query ${index}a`, `query ${index}b`]
          return { queries, raw: queries.map((q, i) => `${i + 1}. ${q}`).join("\n") }
        })
    }),
    Judge.layerTest({
      compare: (input) =>
        Effect.sync(() => {
          const better = script.verdicts[calls.compares.length] ?? false
          calls.compares.push(input)
          return new Verdict({ better, parsed: "rule" })
        })
    }),
    Answerer.layerTest({
      answer: (input) => Effect.sync(() => (calls.answers.push(input), new Answer({ text: "the answer" })))
    })
  )
  return { calls, layer }
}

/** The run configuration `knobs` decode to (defaults for the rest). */
export const configOf = (knobs: object): RunConfig => Schema.decodeUnknownSync(RunConfig)(knobs)

/**
 * Answers `question` with roles that follow a script, under `defaults` (e.g. the profile) overridden by each call's
 * `knobs`: the result and the calls the roles saw.
 */
export const scriptedRun = (question: Question, defaults: object = {}) => (script: Script, knobs: object) => {
  const { calls, layer } = scripted(script)
  return answerQuestion(question, configOf({ ...defaults, ...knobs })).pipe(
    Effect.provide(layer),
    Effect.map((result) => ({ result, calls }))
  )
}
