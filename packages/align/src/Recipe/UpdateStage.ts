import {
  Judge,
  Note,
  type Passage,
  type RetrievalError,
  type RoleError,
  type RoleOutcome,
  Verdict
} from "@deepnote-rag/core"
import type { Retriever } from "@deepnote-rag/core"
import { Effect } from "effect"
import { noteAgreement } from "./Agreement.js"
import { distinct, pickBySeed } from "./Groups.js"
import { atStep, type QuestionEnv, retrieve, sampleAll } from "./QuestionEnv.js"
import { makePair, updateMessages } from "./Records.js"

/**
 * D_KA: retrieve with the positive queries (each with the question, as the loop's first refinement; passages already
 * read dropped), sample the update of the positive note over the grid, label each distinct update with the adaptive
 * retrieval decision (ARD: True when significantly better than the note it updates), and draw the chosen note from the
 * True ones and the rejected from the False ones, by seed.
 */
export const updateStage = (
  env: QuestionEnv,
  note: string,
  queries: ReadonlyArray<string>,
  read: ReadonlyArray<Passage>
): Effect.Effect<RoleOutcome, RoleError | RetrievalError, Retriever | Judge> =>
  Effect.gen(function*() {
    const none = { role: "update" as const, samples: 0, distinct: 0 }
    if (queries.length === 0) return { ...none, dropped: "no-queries" }
    const question = env.question.text
    const context = atStep(env.base, 1)
    const passages = yield* retrieve(env, {
      queries: queries.map((q) => `${question}\n${q}`),
      recallK: Math.max(context.config.recallK, env.topK),
      topK: env.topK,
      exclude: new Set(read.map((p) => p.id)),
      rerankQuery: `${question}\n${queries.join("\n")}`,
      context
    })
    if (passages.length === 0) return { ...none, dropped: "no-passages" }
    const bestNote = new Note({ text: note })
    const samples = yield* sampleAll(
      env,
      "update",
      context,
      Note,
      (c) => ({ question, bestNote, passages, context: c }),
      (roles, input) => roles.noteWriter.update(input),
      (n) => n.text
    )
    const group = distinct(samples)
    const counts = { role: "update" as const, samples: samples.length, distinct: group.length }
    if (group.length < 2) return { ...counts, dropped: "identical-samples" }
    const judge = yield* Judge
    const verdicts = yield* Effect.forEach(group, (sample) => {
      const candidate = new Note({ text: sample.text })
      return env.calls.call(
        "judge",
        { question, bestNote, candidate, context },
        Verdict,
        judge.compare({ question, bestNote, candidate, context })
      )
    })
    const positives = group.filter((_, i) => verdicts[i]!.better)
    const negatives = group.filter((_, i) => !verdicts[i]!.better)
    if (positives.length === 0) return { ...counts, dropped: "no-positive" }
    if (negatives.length === 0) return { ...counts, dropped: "no-negative" }
    const seed = env.spec.seed
    const chosen = pickBySeed(positives, seed, env.question.id, "update-chosen")
    const rejected = pickBySeed(negatives, seed, env.question.id, "update-rejected")
    const agreement = noteAgreement(env.question, chosen.text, rejected.text)
    const pair = makePair({
      role: "update",
      questionId: env.question.id,
      topK: env.topK,
      prompt: updateMessages(context, question, note, passages),
      chosen,
      rejected,
      judge: { method: "ard", model: env.judgeLabel, candidates: group.length, chosen: "True", rejected: "False" }
    })
    return { ...counts, pair, ...(agreement === undefined ? {} : { agreement }) }
  })
