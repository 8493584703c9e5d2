import { Effect } from "effect"
import { Note } from "../Domain/Note.js"
import type { ProfileRun, StopPolicy } from "../Profiles/ProfileDefinition.js"
import { Answerer } from "../Services/Answerer.js"
import { Judge } from "../Services/Judge.js"
import { oneQueryLoop, type QueryStep } from "./OneQueryLoop.js"
import { queryAlone, retrieveStage } from "./Stages.js"

/** A DeepRAG step: the atomic decision on the follow-up subquery, then its intermediate answer (counted in `tally`). */
const deepRagStep = (tally: { retrieved: number; parametric: number }): QueryStep =>
({
  context,
  lines,
  query,
  recorder
}) =>
  Effect.gen(function*() {
    const judge = yield* Judge
    const answerer = yield* Answerer
    const known = new Note({ text: lines.join("\n") })
    recorder.countCall("judge")
    const [decision, judgeMs] = yield* recorder.timed(
      judge.compare({ question: query, bestNote: known, candidate: new Note({ text: query }), context })
    )
    yield* recorder.emit(
      (c) => ({ _tag: "Judged", ...c, verdict: decision, failures: recorder.failures, durationMs: judgeMs }),
      context.step
    )
    recorder.steps = context.step
    const evidence = decision.better
      ? {
        _tag: "Passages" as const,
        passages: yield* retrieveStage(recorder, queryAlone(query, context.config), context)
      }
      : { _tag: "Note" as const, note: known }
    if (decision.better) tally.retrieved += 1
    else tally.parametric += 1
    recorder.countCall("answer")
    const intermediate = yield* answerer.answer({ question: query, evidence, context })
    lines.push(`Follow up: ${query}`, `Intermediate answer: ${intermediate.text}`)
    return 0
  })

/**
 * DeepRAG's inference loop. Each step: the planner writes the next follow-up subquery (none once the final answer is
 * known: `finish`); the judge makes the atomic decision, retrieve or answer from the model's own knowledge; the
 * answerer gives the intermediate answer from the retrieved passages or from the chain so far. The chain
 * (`Follow up: …` / `Intermediate answer: …`) is the note the final answer is written from. Per question, the
 * subqueries retrieved and answered parametrically are counted (`counters.subqueries`).
 */
export const deepRagLoop = (stop: StopPolicy): ProfileRun => (question, recorder, base) =>
  Effect.suspend(() => {
    const tally = { retrieved: 0, parametric: 0 }
    recorder.subqueries = tally
    return oneQueryLoop(deepRagStep(tally), stop)(question, recorder, base)
  })
