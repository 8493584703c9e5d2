import { Schema } from "effect"
import { Answer } from "./Answer.js"
import { Note } from "./Note.js"
import { Passage } from "./Passage.js"
import { StopReason } from "./StopReason.js"
import { Verdict } from "./Verdict.js"

/** Fields every event carries: the question, the step (0 = initialisation) and ms since the question started. */
const common = {
  questionId: Schema.String,
  step: Schema.Int,
  elapsedMs: Schema.Number
}

export const Retrieved = Schema.TaggedStruct("Retrieved", {
  ...common,
  queries: Schema.Array(Schema.String),
  passages: Schema.Array(Passage),
  durationMs: Schema.Number
})

/** The two note events carry the same fields: the note written and how long the writer took. */
const noteWritten = {
  ...common,
  note: Note,
  durationMs: Schema.Number
}

export const NoteInitialised = Schema.TaggedStruct("NoteInitialised", noteWritten)

export const QueriesPlanned = Schema.TaggedStruct("QueriesPlanned", {
  ...common,
  queries: Schema.Array(Schema.String),
  /** Proposed queries dropped because they repeat the question or an earlier query. */
  dropped: Schema.Array(Schema.String),
  durationMs: Schema.Number
})

export const NoteUpdated = Schema.TaggedStruct("NoteUpdated", noteWritten)

export const Judged = Schema.TaggedStruct("Judged", {
  ...common,
  verdict: Verdict,
  failures: Schema.Int,
  durationMs: Schema.Number
})

export const Stopped = Schema.TaggedStruct("Stopped", {
  ...common,
  reason: StopReason,
  failures: Schema.Int
})

export const Answered = Schema.TaggedStruct("Answered", {
  ...common,
  answer: Answer,
  durationMs: Schema.Number
})

export const Failed = Schema.TaggedStruct("Failed", {
  ...common,
  message: Schema.String
})

/** What the pipeline publishes as it runs; the CLI, the HTTP app, the run store and tracing consume these. */
export const PipelineEvent = Schema.Union(
  Retrieved,
  NoteInitialised,
  QueriesPlanned,
  NoteUpdated,
  Judged,
  Stopped,
  Answered,
  Failed
)
export type PipelineEvent = typeof PipelineEvent.Type
