import { Effect } from "effect"
import type { QueryComposition } from "../Domain/RunConfig.js"
import { Verdict } from "../Domain/Verdict.js"
import type { NoteStep } from "./NoteLoop.js"
import { selectNewQueries } from "./QueryLog.js"
import { decide, planStage, retrieveStage, updateAndJudgeStage } from "./Stages.js"

/**
 * What a step retrieves for its planned queries: `q0+qt` sends "q0\nq_t" per planned query (the question's terms rank
 * the candidates, the planned query steers), `qt` the planned query alone, `both` "q0\nq_t" with each planned query
 * alone as a lead (its best new candidate kept first, ahead of the fusion).
 */
export const composeQueries = (
  question: string,
  planned: ReadonlyArray<string>,
  composition: QueryComposition
): { readonly queries: ReadonlyArray<string>; readonly leads: ReadonlyArray<string> } => ({
  queries: composition === "qt" ? planned : planned.map((query) => `${question}\n${query}`),
  leads: composition === "both" ? planned : []
})

/**
 * One step of the `deepnote` loop (shared by `adaptive-note`): the paper's step with its weaknesses fixed. Each planned
 * query is retrieved as `queryComposition` says (with the question, alone, or both), candidates are fused, passages
 * already seen are dropped before rerank, repeated queries are dropped; a step with nothing new to ask stops the loop
 * (`no-new-queries`).
 */
export const deepnoteStep: NoteStep = ({ best, context, queryLog, question, recorder }) =>
  Effect.gen(function*() {
    const { config, step } = context
    const { kept } = yield* planStage(
      recorder,
      { question, bestNote: best, queryLog: [...queryLog], count: config.numQueries },
      context,
      (plan) => selectNewQueries(plan.queries, question, queryLog, config.numQueries)
    )
    if (kept.length === 0) return { best, stop: "no-new-queries" as const }
    queryLog.push(...kept)
    const passages = yield* retrieveStage(
      recorder,
      {
        ...composeQueries(question, kept, config.queryComposition),
        recallK: config.recallK,
        topK: config.topK,
        exclude: new Set(recorder.seen),
        rerankQuery: `${question}\n${kept.join("\n")}`
      },
      context
    )
    recorder.steps = step
    const next = passages.length === 0
      // Nothing new was found: the note cannot improve, so the step is a failure without asking the roles.
      ? yield* decide(recorder, best, best, new Verdict({ better: false, parsed: "skipped" }), step, 0)
      : yield* updateAndJudgeStage(recorder, { question, bestNote: best, passages }, context)
    return { best: next }
  })
