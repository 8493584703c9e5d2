import { Note, type Passage, type RetrievalError, type RoleError, type RoleOutcome } from "@deepnote-rag/core"
import { Effect } from "effect"
import { Ranker, Ranking } from "../Judging/Ranker.js"
import { noteAgreement } from "./Agreement.js"
import { distinct } from "./Groups.js"
import { type QuestionEnv, sampleAll, sampleOnce } from "./QuestionEnv.js"
import { initMessages, rankedPair } from "./Records.js"

export interface InitResult {
  /** The role's outcome, when the run makes init pairs. */
  readonly outcome: RoleOutcome | undefined
  /** The positive initial note (the judge's best; the first sample without a verdict): the later stages' input. */
  readonly best: string
}

/**
 * D_Init: the initial note sampled over the grid from the first passages, the group ranked by the judge (relevance,
 * coherence, completeness, accuracy); the best is chosen, the worst rejected. Without init pairs to make, one note at
 * the run's own sampling is the later stages' input.
 */
export const initStage = (
  env: QuestionEnv,
  passages: ReadonlyArray<Passage>,
  makePairs: boolean
): Effect.Effect<InitResult, RoleError | RetrievalError, Ranker> =>
  Effect.gen(function*() {
    const question = env.question.text
    const request = (context: typeof env.base) => ({ question, passages, context })
    if (!makePairs) {
      const note = yield* sampleOnce(env, "init", env.base, Note, request(env.base), (roles, input) =>
        roles.noteWriter.init(input))
      return { outcome: undefined, best: note.text }
    }
    if (passages.length === 0) {
      return { outcome: { role: "init", samples: 0, distinct: 0, dropped: "no-passages" }, best: "" }
    }
    const samples = yield* sampleAll(
      env,
      "init",
      env.base,
      Note,
      request,
      (roles, input) =>
        roles.noteWriter.init(input),
      (note) =>
        note.text
    )
    const group = distinct(samples)
    const counts = { role: "init" as const, samples: samples.length, distinct: group.length }
    const fallback = group[0]?.text ?? ""
    if (group.length < 2) {
      return { outcome: { ...counts, dropped: "identical-samples" }, best: fallback }
    }
    const ranker = yield* Ranker
    const candidates = group.map((s) =>
      s.text
    )
    const ranking = yield* env.calls.call(
      "rank",
      { question, passages, candidates, context: env.base },
      Ranking,
      ranker.rankNotes({ question, passages, candidates, context: env.base })
    )
    if (ranking._tag === "Unreadable") {
      return { outcome: { ...counts, dropped: "judge-unreadable" }, best: fallback }
    }
    const chosen = group[ranking.bestId]!
    if (ranking.bestId === ranking.worstId) {
      return { outcome: { ...counts, dropped: "judge-tie" }, best: chosen.text }
    }
    const prompt = initMessages(env.base, question, passages)
    return {
      outcome: { ...counts, ...rankedPair(env, "init", prompt, group, ranking, noteAgreement) },
      best: chosen.text
    }
  })
