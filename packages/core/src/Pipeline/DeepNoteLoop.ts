import { Effect } from "effect"
import { Verdict } from "../Domain/Verdict.js"
import type { NoteStep } from "./NoteLoop.js"
import { selectNewQueries } from "./QueryLog.js"
import { decide, planStage, retrieveStage, updateAndJudgeStage } from "./Stages.js"

/**
 * One step of the `deepnote` loop (shared by `adaptive-note`): the paper's step with its weaknesses fixed. Each planned
 * query is retrieved together with the question, candidates are fused, passages already seen are dropped before
 * rerank, repeated queries are dropped; a step with nothing new to ask stops the loop (`no-new-queries`).
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
        queries: kept.map((query) => `${question}\n${query}`),
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
