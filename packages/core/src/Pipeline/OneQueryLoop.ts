import { Effect } from "effect"
import type { CallContext } from "../Domain/CallContext.js"
import type { PipelineError } from "../Domain/Errors.js"
import { Note } from "../Domain/Note.js"
import type { StopReason } from "../Domain/StopReason.js"
import { withHotSpan } from "../Observability/HotSpan.js"
import type { ProfileRoles, ProfileRun, StopPolicy } from "../Profiles/ProfileDefinition.js"
import { loopState, stopAndAnswer } from "./NoteLoop.js"
import { selectNewQueries } from "./QueryLog.js"
import type { Recorder } from "./Recorder.js"
import { planStage } from "./Stages.js"

/** What one step of a one-query loop sees: the step's query and the note so far as lines (it appends its own). */
export interface QueryStepInput {
  readonly query: string
  readonly recorder: Recorder
  readonly context: CallContext
  readonly lines: Array<string>
}

/** One step of a one-query loop: appends the step's lines to the note; returns how long writing them took (ms). */
export type QueryStep = (input: QueryStepInput) => Effect.Effect<number, PipelineError, ProfileRoles>

/**
 * The loop of one query per step (DeepRAG, ReNAct): no first note and no best note; each step the planner proposes
 * the next query, `step` turns it into lines of the note (published as `NoteUpdated`), until the stop policy says
 * stop, the planner proposes nothing (`finish`) or only repeats (`no-new-queries`); the answer is written from the note.
 */
export const oneQueryLoop = (step: QueryStep, stop: StopPolicy): ProfileRun => (question, recorder, base) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const queryLog: Array<string> = []
    const noteOf = () => new Note({ text: lines.join("\n") })
    const state = loopState(recorder, base.config)
    let reason: StopReason | undefined = stop(state(0))
    for (let n = 1; reason === undefined; n++) {
      const context: CallContext = { ...base, step: n }
      reason = yield* Effect.gen(function*() {
        const { kept, plan } = yield* planStage(
          recorder,
          { question, bestNote: noteOf(), queryLog: [...queryLog], count: 1 },
          context,
          // The first step needs a query (a finish before anything was read would answer from nothing): with nothing
          // proposed, it is the question itself.
          (plan) =>
            plan.queries.length === 0 && n === 1
              ? { kept: [question], dropped: [] }
              : selectNewQueries(plan.queries, question, queryLog, 1)
        )
        if (kept.length === 0) return plan.queries.length === 0 ? "finish" as const : "no-new-queries" as const
        const query = kept[0]!
        queryLog.push(query)
        const durationMs = yield* step({ query, recorder, context, lines })
        const note = noteOf()
        yield* recorder.emit((c) => ({ _tag: "NoteUpdated", ...c, note, durationMs }), n)
        return stop(state(n))
      }).pipe(
        withHotSpan("deepnote.step", { attributes: { "deepnote.step": n, "deepnote.item.id": base.questionId } })
      )
    }
    return yield* stopAndAnswer(recorder, question, base, noteOf(), reason)
  })
