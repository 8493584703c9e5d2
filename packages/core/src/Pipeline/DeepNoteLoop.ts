import { Effect } from "effect"
import type { CallContext } from "../Domain/CallContext.js"
import type { Note } from "../Domain/Note.js"
import type { StopReason } from "../Domain/StopReason.js"
import { Verdict } from "../Domain/Verdict.js"
import { selectNewQueries } from "./QueryLog.js"
import type { Recorder } from "./Recorder.js"
import { decide, initialNoteStep, planStage, retrieveStage, updateAndJudgeStage } from "./Stages.js"

/** Why a step ended the loop early, if it did. */
type StepOutcome = StopReason | undefined

/**
 * The `deepnote` profile: the paper's loop with its weaknesses fixed. Each planned query is retrieved together with
 * the question, candidates are fused, passages already seen are dropped before rerank, repeated queries are dropped.
 */
export const deepnoteLoop = (question: string, recorder: Recorder, base: Omit<CallContext, "step">) =>
  Effect.gen(function*() {
    const { config } = base
    let best: Note = yield* initialNoteStep(recorder, question, base)
    const queryLog: Array<string> = []
    let reason: StopReason = "max-step"

    for (let step = 1; step <= config.maxStep; step++) {
      const context: CallContext = { ...base, step }
      const outcome: StepOutcome = yield* Effect.gen(function*() {
        const { kept } = yield* planStage(
          recorder,
          { question, bestNote: best, queryLog: [...queryLog], count: config.numQueries },
          context,
          (plan) => selectNewQueries(plan.queries, question, queryLog, config.numQueries)
        )
        if (kept.length === 0) return "no-new-queries" as const
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
        best = passages.length === 0
          // Nothing new was found: the note cannot improve, so the step is a failure without asking the roles.
          ? yield* decide(recorder, best, best, new Verdict({ better: false, parsed: "skipped" }), step, 0)
          : yield* updateAndJudgeStage(recorder, { question, bestNote: best, passages }, context)
        return recorder.failures >= config.maxFailure ? "max-failure" as const : undefined
      }).pipe(
        Effect.withSpan("deepnote.step", { attributes: { "deepnote.step": step, "deepnote.item.id": base.questionId } })
      )
      if (outcome !== undefined) {
        reason = outcome
        break
      }
    }
    return { best, reason }
  })
