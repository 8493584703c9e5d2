import { detectLanguage } from "@deepnote/text"
import { Effect } from "effect"
import type { Answer } from "../Domain/Answer.js"
import type { CallContext } from "../Domain/CallContext.js"
import type { PipelineError } from "../Domain/Errors.js"
import type { Note } from "../Domain/Note.js"
import { PipelineResult } from "../Domain/PipelineResult.js"
import type { Question } from "../Domain/Question.js"
import type { RunConfig } from "../Domain/RunConfig.js"
import type { StopReason } from "../Domain/StopReason.js"
import type { Answerer } from "../Services/Answerer.js"
import type { Judge } from "../Services/Judge.js"
import type { NoteWriter } from "../Services/NoteWriter.js"
import type { QueryPlanner } from "../Services/QueryPlanner.js"
import type { Retriever } from "../Services/Retriever.js"
import { initNoteOnly, noRetrieval, vanilla } from "./Baselines.js"
import { deepnoteLoop } from "./DeepNoteLoop.js"
import { paperLoop } from "./PaperLoop.js"
import { observeQuestion } from "./QuestionMetrics.js"
import { Recorder } from "./Recorder.js"
import { answerStage } from "./Stages.js"
import { traceOf } from "./Trace.js"

export interface AnswerOptions {
  /** Recorded on every call context and span (journal, ledger, telemetry). */
  readonly runId?: string
}

type NoteLoop = (
  question: string,
  recorder: Recorder,
  base: Omit<CallContext, "step">
) => Effect.Effect<
  { readonly best: Note; readonly reason: StopReason },
  PipelineError,
  Retriever | NoteWriter | QueryPlanner | Judge
>

interface Outcome {
  readonly answer: Answer
  readonly best: Note | undefined
  readonly reason: StopReason
}

const loopThenAnswer = (
  loop: NoteLoop,
  question: string,
  recorder: Recorder,
  base: Omit<CallContext, "step">
) =>
  Effect.gen(function*() {
    const { best, reason } = yield* loop(question, recorder, base)
    yield* recorder.stopped(recorder.steps, reason)
    yield* Effect.annotateCurrentSpan("deepnote.stop_reason", reason)
    const answer = yield* answerStage(recorder, question, { _tag: "Note", note: best }, {
      ...base,
      step: recorder.steps
    })
    return { answer, best, reason } satisfies Outcome
  })

/**
 * Answers one question with the configured profile, publishing events to the `EventSink` in context (if any).
 * Requires the five role services; never reads anything else.
 */
export const answerQuestion = (question: Question, config: RunConfig, options: AnswerOptions = {}) =>
  Effect.gen(function*() {
    const recorder = yield* Recorder.make(question.id)
    const language = config.language === "auto" ? question.language ?? detectLanguage(question.text) : config.language
    const base: Omit<CallContext, "step"> = {
      questionId: question.id,
      runId: options.runId,
      language,
      config: question.task === undefined ? config : { ...config, task: question.task }
    }
    const text = question.text
    const outcome =
      yield* ((): Effect.Effect<Outcome, PipelineError, Retriever | NoteWriter | QueryPlanner | Judge | Answerer> => {
        switch (config.profile) {
          case "deepnote":
            return loopThenAnswer(deepnoteLoop, text, recorder, base)
          case "paper":
            return loopThenAnswer(paperLoop, text, recorder, base)
          case "no-retrieval":
            return noRetrieval(text, recorder, { ...base, step: 0 }).pipe(
              Effect.map((r) => ({ ...r, reason: "baseline" as const }))
            )
          case "vanilla":
            return vanilla(text, recorder, { ...base, step: 0 }).pipe(
              Effect.map((r) => ({ ...r, reason: "baseline" as const }))
            )
          case "init-note":
            return initNoteOnly(text, recorder, { ...base, step: 0 }).pipe(
              Effect.map((r) => ({ ...r, reason: "baseline" as const }))
            )
        }
      })().pipe(
        Effect.tapError((error) =>
          recorder.emit((c) => ({ _tag: "Failed", ...c, message: error.message }), recorder.steps)
        )
      )
    const elapsedMs = yield* recorder.elapsed
    return new PipelineResult({
      questionId: question.id,
      question: text,
      profile: config.profile,
      answer: outcome.answer,
      ...(outcome.best === undefined ? {} : { bestNote: outcome.best }),
      stopReason: outcome.reason,
      trace: traceOf(recorder.events),
      counters: recorder.counters(),
      elapsedMs
    })
  }).pipe(
    observeQuestion(config.profile),
    Effect.annotateLogs({
      "deepnote.item.id": question.id,
      ...(options.runId === undefined ? {} : { "deepnote.run.id": options.runId })
    }),
    Effect.withSpan("deepnote.question", {
      attributes: {
        "deepnote.item.id": question.id,
        "deepnote.profile": config.profile,
        ...(options.runId === undefined ? {} : { "deepnote.run.id": options.runId })
      }
    })
  )
