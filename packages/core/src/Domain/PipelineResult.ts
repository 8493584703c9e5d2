import { Schema } from "effect"
import { Answer } from "./Answer.js"
import { Note } from "./Note.js"
import { Passage } from "./Passage.js"
import { Profile } from "./Profile.js"
import { StopReason } from "./StopReason.js"
import { Verdict } from "./Verdict.js"

export const QueryEntry = Schema.Struct({ step: Schema.Int, query: Schema.String })
export const PassageEntry = Schema.Struct({ step: Schema.Int, passage: Passage })
export const NoteEntry = Schema.Struct({
  step: Schema.Int,
  note: Note,
  /** Absent for the initial note (best by definition). */
  verdict: Schema.optional(Verdict),
  /** Whether this note was the best note after its step. */
  best: Schema.Boolean
})

/** Calls made for one question. `llm` counts role calls (one model call each for an LLM engine). */
export const Counters = Schema.Struct({
  llm: Schema.Struct({
    init: Schema.Int,
    plan: Schema.Int,
    update: Schema.Int,
    judge: Schema.Int,
    answer: Schema.Int,
    total: Schema.Int
  }),
  retrievals: Schema.Int,
  steps: Schema.Int,
  failures: Schema.Int,
  uniquePassages: Schema.Int,
  /** `deeprag`: subqueries answered from retrieval and from the model's own knowledge. */
  subqueries: Schema.optional(Schema.Struct({ retrieved: Schema.Int, parametric: Schema.Int }))
})
export type Counters = typeof Counters.Type

/** Everything one question produced: the answer, the best note, the full trace and counters. */
export class PipelineResult extends Schema.Class<PipelineResult>("PipelineResult")({
  questionId: Schema.String,
  question: Schema.String,
  profile: Profile,
  answer: Answer,
  bestNote: Schema.optional(Note),
  stopReason: StopReason,
  trace: Schema.Struct({
    queries: Schema.Array(QueryEntry),
    passages: Schema.Array(PassageEntry),
    notes: Schema.Array(NoteEntry)
  }),
  counters: Counters,
  elapsedMs: Schema.Number,
  /** The OpenTelemetry trace id of the span the question ran in, set where a run's question is executed. */
  traceId: Schema.optional(Schema.String)
}) {}
