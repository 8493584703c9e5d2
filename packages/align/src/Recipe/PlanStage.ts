import { type Plan, type RetrievalError, type RoleError, type RoleOutcome, selectNewQueries } from "@deepnote-rag/core"
import { Effect, Schema } from "effect"
import { Ranker, Ranking } from "../Judging/Ranker.js"
import { queryAgreement } from "./Agreement.js"
import { distinct } from "./Groups.js"
import { type QuestionEnv, sampleAll, sampleOnce } from "./QuestionEnv.js"
import { planCompletion, planMessages, rankedPair } from "./Records.js"

const PlanSchema = Schema.Struct({ queries: Schema.Array(Schema.String), raw: Schema.String })

export interface PlanResult {
  readonly outcome: RoleOutcome | undefined
  /** The positive plan's new queries (what knowledge accumulation retrieves with). */
  readonly queries: ReadonlyArray<string>
}

/**
 * D_QR: the first query refinement sampled over the grid, its input the question and the positive initial note (an
 * empty query log); the group ranked by the judge (relevance, specificity, keywords, non-redundancy). Without plan
 * pairs to make, one plan at the run's own sampling gives the queries.
 */
export const planStage = (
  env: QuestionEnv,
  note: string,
  makePairs: boolean
): Effect.Effect<PlanResult, RoleError | RetrievalError, Ranker> =>
  Effect.gen(function*() {
    const question = env.question.text
    const count = env.base.config.numQueries
    const queryLog: ReadonlyArray<string> = []
    const bestNote = { text: note }
    const request = (context: typeof env.base) => ({ question, bestNote, queryLog, count, context })
    const newQueries = (plan: Plan) => selectNewQueries(plan.queries, question, queryLog, count).kept
    if (!makePairs) {
      const plan = yield* sampleOnce(env, "plan", env.base, PlanSchema, request(env.base), (roles, input) =>
        roles.queryPlanner.plan(input))
      return { outcome: undefined, queries: newQueries(plan) }
    }
    const samples = yield* sampleAll(
      env,
      "plan",
      env.base,
      PlanSchema,
      request,
      (roles, input) =>
        roles.queryPlanner.plan(input),
      (plan) =>
        plan.queries.length === 0 ? "" : planCompletion(env.base, plan)
    )
    const group = distinct(samples)
    const counts = { role: "plan" as const, samples: samples.length, distinct: group.length }
    const fallback = group[0] === undefined ? [] : newQueries(group[0].value)
    if (group.length < 2) {
      return { outcome: { ...counts, dropped: "identical-samples" }, queries: fallback }
    }
    const ranker = yield* Ranker
    const candidates = group.map((s) =>
      s.value.queries
    )
    const rendered = group.map((s) =>
      s.text
    )
    const ranking = yield* env.calls.call(
      "rank",
      { question, note, queryLog, candidates, context: env.base },
      Ranking,
      ranker.rankQueries({ question, note, queryLog, candidates, rendered, context: env.base })
    )
    if (ranking._tag === "Unreadable") return { outcome: { ...counts, dropped: "judge-unreadable" }, queries: fallback }
    const chosen = group[ranking.bestId]!
    const queries = newQueries(chosen.value)
    if (ranking.bestId === ranking.worstId) return { outcome: { ...counts, dropped: "judge-tie" }, queries }
    const prompt = planMessages(env.base, question, note, queryLog)
    return { outcome: { ...counts, ...rankedPair(env, "plan", prompt, group, ranking, queryAgreement) }, queries }
  })
