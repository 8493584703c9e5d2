import { Answer, type Passage, type RetrievalError, type RoleError, type RoleOutcome } from "@deepnote-rag/core"
import { type MetricName, metrics, scorableOf } from "@deepnote-rag/eval"
import { Effect } from "effect"
import { distinct, pickBySeed } from "./Groups.js"
import { type QuestionEnv, sampleAll } from "./QuestionEnv.js"
import { answerMessages, makePair } from "./Records.js"

/** The metric that labels answers: the paper's Acc (a gold alias inside the answer); yes/no as a whole word. */
export const answerMetric = (env: QuestionEnv): MetricName =>
  env.base.config.task === "yesno" ? "strategyqa-acc" : "acc"

/**
 * D_Ans: vanilla-RAG answers (from the first passages) sampled over the grid and labelled by the task metric against
 * the gold answers: the chosen answer from the correct ones, the rejected from the wrong ones, by seed.
 */
export const answerStage = (
  env: QuestionEnv,
  passages: ReadonlyArray<Passage>
): Effect.Effect<RoleOutcome, RoleError | RetrievalError> =>
  Effect.gen(function*() {
    const none = { role: "answer" as const, samples: 0, distinct: 0 }
    if ((env.question.answers ?? []).length === 0) return { ...none, dropped: "no-gold" }
    if (passages.length === 0) return { ...none, dropped: "no-passages" }
    const question = env.question.text
    const samples = yield* sampleAll(
      env,
      "answer",
      env.base,
      Answer,
      (context) => ({ question, evidence: { _tag: "Passages" as const, passages }, context }),
      (roles, input) => roles.answerer.answer(input),
      (answer) => answer.text
    )
    const group = distinct(samples)
    const counts = { role: "answer" as const, samples: samples.length, distinct: group.length }
    if (group.length < 2) return { ...counts, dropped: "identical-samples" }
    const name = answerMetric(env)
    const score = (text: string) => metrics[name].score(scorableOf(env.question, text))
    const positives = group.filter((s) => score(s.text) >= 1)
    const negatives = group.filter((s) => score(s.text) <= 0)
    if (positives.length === 0) return { ...counts, dropped: "no-positive" }
    if (negatives.length === 0) return { ...counts, dropped: "no-negative" }
    const seed = env.spec.seed
    const pair = makePair({
      role: "answer",
      questionId: env.question.id,
      topK: env.topK,
      prompt: answerMessages(env.base, question, passages),
      chosen: pickBySeed(positives, seed, env.question.id, "answer-chosen"),
      rejected: pickBySeed(negatives, seed, env.question.id, "answer-rejected"),
      judge: { method: "metric", model: name, candidates: group.length, chosen: `${name}=1`, rejected: `${name}=0` }
    })
    return { ...counts, pair }
  })
