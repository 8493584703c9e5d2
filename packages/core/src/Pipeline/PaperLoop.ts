import { Effect } from "effect"
import type { CallContext } from "../Domain/CallContext.js"
import { Note } from "../Domain/Note.js"
import type { StopReason } from "../Domain/StopReason.js"
import { applyPaperCap, paperCapRule, paperNoteText, paperRetrievalQuery } from "./PaperRules.js"
import type { Recorder } from "./Recorder.js"
import { initialNoteStep, planStage, retrieveStage, updateAndJudgeStage } from "./Stages.js"

/**
 * The `paper` profile: the public reference implementation's loop, kept for comparison. The planner's raw output and
 * the question form one retrieval string cut to 500 characters; seen passages are filtered only near the unique-passage
 * cap; the rewritten note loses its newlines; the loop also stops once the cap is exceeded.
 */
export const paperLoop = (question: string, recorder: Recorder, base: Omit<CallContext, "step">) =>
  Effect.gen(function*() {
    const { config } = base
    let best: Note = yield* initialNoteStep(recorder, question, base)
    const queryLog: Array<string> = []
    let reason: StopReason = "max-step"

    for (let step = 1; step <= config.maxStep; step++) {
      const rule = paperCapRule(recorder.seen.size, config.topK, config.maxUniquePassages)
      if (rule._tag === "Stop") {
        reason = "passage-cap"
        break
      }
      const context: CallContext = { ...base, step }
      const failed = yield* Effect.gen(function*() {
        const { plan } = yield* planStage(
          recorder,
          { question, bestNote: best, queryLog: [...queryLog], count: config.numQueries },
          context,
          (plan) => ({ kept: [plan.raw], dropped: [] })
        )
        queryLog.push(plan.raw)
        const query = paperRetrievalQuery(plan.raw, question)
        const seenBefore = new Set(recorder.seen)
        const passages = yield* retrieveStage(
          recorder,
          { queries: [query], recallK: config.recallK, topK: config.topK, exclude: new Set(), rerankQuery: query },
          context,
          (found) => applyPaperCap(found, seenBefore, rule.room)
        )
        best = yield* updateAndJudgeStage(
          recorder,
          { question, bestNote: best, passages },
          context,
          (note) => new Note({ text: paperNoteText(note.text) })
        )
        recorder.steps = step
        return recorder.failures >= config.maxFailure
      }).pipe(
        Effect.withSpan("deepnote.step", { attributes: { "deepnote.step": step, "deepnote.item.id": base.questionId } })
      )
      if (failed) {
        reason = "max-failure"
        break
      }
    }
    return { best, reason }
  })
