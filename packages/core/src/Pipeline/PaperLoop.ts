import { Effect } from "effect"
import { Note } from "../Domain/Note.js"
import type { NoteStep } from "./NoteLoop.js"
import { applyPaperCap, paperCap, paperCapRule, paperNoteText, paperRetrievalQuery } from "./PaperRules.js"
import { planStage, retrieveStage, updateAndJudgeStage } from "./Stages.js"

/**
 * One step of the `paper` loop, the public reference implementation's, kept for comparison. The planner's raw output
 * and the question form one retrieval string cut to 500 characters; seen passages are filtered only near the
 * unique-passage cap; the rewritten note loses its newlines.
 */
export const paperStep: NoteStep = ({ best, context, queryLog, question, recorder }) =>
  Effect.gen(function*() {
    const { config, step } = context
    const rule = paperCapRule(recorder.seen.size, config.topK, paperCap(config))
    // The stop policy has already stopped a loop at the cap, so the rule only tells how much room is left.
    const room = rule._tag === "Continue" ? rule.room : 0
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
      (found) => applyPaperCap(found, seenBefore, room)
    )
    const next = yield* updateAndJudgeStage(
      recorder,
      { question, bestNote: best, passages },
      context,
      (note) => new Note({ text: paperNoteText(note.text) })
    )
    recorder.steps = step
    return { best: next }
  })
