import { Effect } from "effect"
import type { CallContext } from "../Domain/CallContext.js"
import { Note } from "../Domain/Note.js"
import type { StopReason } from "../Domain/StopReason.js"
import type { ProfileRun, StopPolicy } from "../Profiles/ProfileDefinition.js"
import { Answerer } from "../Services/Answerer.js"
import { Judge } from "../Services/Judge.js"
import { loopState, stopAndAnswer } from "./NoteLoop.js"
import { selectNewQueries } from "./QueryLog.js"
import { planStage, retrieveStage } from "./Stages.js"

/**
 * DeepRAG's inference loop. Each step: the planner writes the next follow-up subquery (none once the final answer is
 * known: `finish`); the judge makes the atomic decision, retrieve or answer from the model's own knowledge; the
 * answerer gives the intermediate answer from the retrieved passages or from the chain so far. The chain
 * (`Follow up: …` / `Intermediate answer: …`) is the note the final answer is written from. Per question, the
 * subqueries retrieved and answered parametrically are counted (`counters.subqueries`).
 */
export const deepRagLoop = (stop: StopPolicy): ProfileRun => (question, recorder, base) =>
  Effect.gen(function*() {
    const judge = yield* Judge
    const answerer = yield* Answerer
    const chain: Array<string> = []
    const queryLog: Array<string> = []
    const tally = { retrieved: 0, parametric: 0 }
    recorder.subqueries = tally
    const state = loopState(recorder, base.config)
    let reason: StopReason | undefined = stop(state(0))
    for (let n = 1; reason === undefined; n++) {
      const context: CallContext = { ...base, step: n }
      reason = yield* Effect.gen(function*() {
        const known = new Note({ text: chain.join("\n") })
        const { kept, plan } = yield* planStage(
          recorder,
          { question, bestNote: known, queryLog: [...queryLog], count: 1 },
          context,
          // A chain needs a first step: with nothing proposed, the first follow-up is the question itself.
          (plan) =>
            plan.queries.length === 0 && n === 1
              ? { kept: [question], dropped: [] }
              : selectNewQueries(plan.queries, question, queryLog, 1)
        )
        if (kept.length === 0) return plan.queries.length === 0 ? "finish" as const : "no-new-queries" as const
        const subquery = kept[0]!
        queryLog.push(subquery)
        recorder.countCall("judge")
        const [decision, judgeMs] = yield* recorder.timed(
          judge.compare({ question: subquery, bestNote: known, candidate: new Note({ text: subquery }), context })
        )
        yield* recorder.emit(
          (c) => ({ _tag: "Judged", ...c, verdict: decision, failures: recorder.failures, durationMs: judgeMs }),
          n
        )
        recorder.steps = n
        const evidence = decision.better
          ? {
            _tag: "Passages" as const,
            passages: yield* retrieveStage(
              recorder,
              {
                queries: [subquery],
                recallK: base.config.recallK,
                topK: base.config.topK,
                exclude: new Set(),
                rerankQuery: subquery
              },
              context
            )
          }
          : { _tag: "Note" as const, note: known }
        if (decision.better) tally.retrieved += 1
        else tally.parametric += 1
        recorder.countCall("answer")
        const intermediate = yield* answerer.answer({ question: subquery, evidence, context })
        chain.push(`Follow up: ${subquery}`, `Intermediate answer: ${intermediate.text}`)
        const note = new Note({ text: chain.join("\n") })
        yield* recorder.emit((c) => ({ _tag: "NoteUpdated", ...c, note, durationMs: 0 }), n)
        return stop(state(n))
      }).pipe(
        Effect.withSpan("deepnote.step", { attributes: { "deepnote.step": n, "deepnote.item.id": base.questionId } })
      )
    }
    return yield* stopAndAnswer(recorder, question, base, new Note({ text: chain.join("\n") }), reason)
  })
