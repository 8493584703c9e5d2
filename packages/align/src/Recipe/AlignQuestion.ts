import {
  AlignItemResult,
  type AlignSpec,
  type CallContext,
  type Judge,
  profiles,
  type Question,
  type RetrievalError,
  type Retriever,
  type RoleError,
  type RoleOutcome,
  type RunConfig
} from "@deepnote-rag/core"
import { detectLanguage } from "@deepnote-rag/text"
import { Clock, Effect } from "effect"
import type { Ranker } from "../Judging/Ranker.js"
import type { Sampler } from "../Sampling/Sampler.js"
import { sampleSlots, topKFor } from "../Sampling/Slots.js"
import type { AlignCalls } from "./AlignCalls.js"
import { answerStage } from "./AnswerStage.js"
import { initStage } from "./InitStage.js"
import { planStage } from "./PlanStage.js"
import type { QuestionEnv } from "./QuestionEnv.js"
import { retrieve } from "./QuestionEnv.js"
import { updateStage } from "./UpdateStage.js"

export interface AlignQuestionInput {
  readonly question: Question
  readonly runId: string | undefined
  readonly config: RunConfig
  readonly spec: AlignSpec
  readonly sampler: Sampler
  readonly calls: AlignCalls
}

/**
 * One question of DNAlign's recipe, in order: retrieve the question's passages (its top-k drawn from the range), then
 * for each role asked — init (ranked group), plan (ranked group, from the positive note), update (ARD-labelled group,
 * from the positive note and what the positive queries retrieve), answer (metric-labelled group of vanilla-RAG
 * answers) — one pair or the reason there is none. A later role whose input stage is not asked gets that input from
 * one call at the run's own sampling. Every call goes through `calls`, in a fixed order.
 */
export const alignQuestion = (
  input: AlignQuestionInput
): Effect.Effect<AlignItemResult, RoleError | RetrievalError, Retriever | Judge | Ranker> =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const { question, spec } = input
    const config = question.task === undefined ? input.config : { ...input.config, task: question.task }
    const base: CallContext = {
      questionId: question.id,
      runId: input.runId,
      step: 0,
      language: config.language === "auto" ? question.language ?? detectLanguage(question.text) : config.language,
      formats: profiles[config.profile].formats,
      config
    }
    const topK = topKFor(spec, question.id)
    const env: QuestionEnv = {
      question,
      base,
      spec,
      slots: sampleSlots(spec),
      topK,
      sampler: input.sampler,
      calls: input.calls,
      judgeLabel: spec.judge.engine === "extractive" ? "extractive" : spec.judge.model ?? "judge"
    }
    const asked = new Set(spec.roles)
    const passages = yield* retrieve(env, {
      queries: [question.text],
      recallK: Math.max(config.recallK, topK),
      topK,
      exclude: new Set<string>(),
      rerankQuery: question.text,
      context: base
    })
    const outcomes: Array<RoleOutcome> = []
    const needsNote = asked.has("init") || asked.has("plan") || asked.has("update")
    if (needsNote) {
      const init = yield* initStage(env, passages, asked.has("init"))
      if (init.outcome !== undefined) outcomes.push(init.outcome)
      if (asked.has("plan") || asked.has("update")) {
        const plan = yield* planStage(env, init.best, asked.has("plan"))
        if (plan.outcome !== undefined) outcomes.push(plan.outcome)
        if (asked.has("update")) outcomes.push(yield* updateStage(env, init.best, plan.queries, passages))
      }
    }
    if (asked.has("answer")) outcomes.push(yield* answerStage(env, passages))
    const elapsedMs = (yield* Clock.currentTimeMillis) - started
    return new AlignItemResult({ questionId: question.id, topK, outcomes, elapsedMs })
  }).pipe(
    Effect.withSpan("DNAlign.question", {
      attributes: { "deepnote.item.id": input.question.id, "deepnote.align.roles": input.spec.roles.join(",") }
    })
  )
