import { detectLanguage } from "@deepnote-rag/text"
import { Effect } from "effect"
import type { CallContext } from "../Domain/CallContext.js"
import { PipelineResult } from "../Domain/PipelineResult.js"
import type { Question } from "../Domain/Question.js"
import type { RunConfig } from "../Domain/RunConfig.js"
import { passageBudget } from "../Profiles/ProfileDefinition.js"
import { profileOf } from "../Profiles/Registry.js"
import { observeQuestion } from "./QuestionMetrics.js"
import { Recorder } from "./Recorder.js"
import { traceOf } from "./Trace.js"

export interface AnswerOptions {
  /** Recorded on every call context and span (journal, ledger, telemetry). */
  readonly runId?: string
  /** Which execution of the question this is (`CallContext.attempt`); default 1. */
  readonly attempt?: number
}

/**
 * Answers one question with the configured profile (its record in `profiles`), publishing events to the `EventSink`
 * in context (if any). Requires the five role services; never reads anything else.
 */
export const answerQuestion = (question: Question, config: RunConfig, options: AnswerOptions = {}) =>
  Effect.gen(function*() {
    const profile = profileOf(config.profile)
    const recorder = yield* Recorder.make(question.id, passageBudget(config, profile.defaults))
    const language = config.language === "auto" ? question.language ?? detectLanguage(question.text) : config.language
    const base: Omit<CallContext, "step"> = {
      questionId: question.id,
      runId: options.runId,
      attempt: options.attempt,
      language,
      formats: profile.formats,
      config: question.task === undefined ? config : { ...config, task: question.task }
    }
    const text = question.text
    const outcome = yield* profile.run(text, recorder, base).pipe(
      Effect.tapError((error) =>
        recorder.emit((c) => ({ _tag: "Failed", ...c, message: error.message }), recorder.steps)
      )
    )
    const elapsedMs = yield* recorder.elapsed
    // built from this module's own typed values: validating the whole trace again here was ≈ 2 % of a run's CPU
    // (benchmarks/cpu); a result is validated by the schema where it leaves the process (stored, sent, exported)
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
    }, { disableValidation: true })
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
