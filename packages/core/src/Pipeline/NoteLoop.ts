import { Effect } from "effect"
import type { CallContext } from "../Domain/CallContext.js"
import type { PipelineError } from "../Domain/Errors.js"
import type { Note } from "../Domain/Note.js"
import type { RunConfig } from "../Domain/RunConfig.js"
import type { StopReason } from "../Domain/StopReason.js"
import { withHotSpan } from "../Observability/HotSpan.js"
import type { LoopState, ProfileRoles, ProfileRun, StopPolicy } from "../Profiles/ProfileDefinition.js"
import type { Recorder } from "./Recorder.js"
import { answerStage, initialNoteStep } from "./Stages.js"

/** What one step of a note loop sees: the question, the best note and the queries asked so far (it appends). */
export interface StepInput {
  readonly question: string
  readonly recorder: Recorder
  readonly context: CallContext
  readonly best: Note
  readonly queryLog: Array<string>
}

/** One step: the next best note, and a reason to stop that only the step can know (e.g. nothing new to ask). */
export type NoteStep = (
  input: StepInput
) => Effect.Effect<{ readonly best: Note; readonly stop?: StopReason | undefined }, PipelineError, ProfileRoles>

/** What the stop policy sees after `step` steps of a question's loop. */
export const loopState = (recorder: Recorder, config: RunConfig) => (step: number): LoopState => ({
  step,
  failures: recorder.failures,
  uniquePassages: recorder.seen.size,
  config
})

/** Every loop's end: the `Stopped` event, the stop reason on the span, the answer from the final note. */
export const stopAndAnswer = (
  recorder: Recorder,
  question: string,
  base: Omit<CallContext, "step">,
  best: Note,
  reason: StopReason
) =>
  Effect.gen(function*() {
    yield* recorder.stopped(recorder.steps, reason)
    yield* Effect.annotateCurrentSpan("deepnote.stop_reason", reason)
    const answer = yield* answerStage(recorder, question, { _tag: "Note", note: best }, {
      ...base,
      step: recorder.steps
    })
    return { answer, best, reason }
  })

/**
 * The shared note loop: the first note from the question's passages, then steps until the stop policy (asked after
 * the first note and after every step) or the step itself says stop; then the answer from the best note.
 */
export const noteLoop = (step: NoteStep, stop: StopPolicy): ProfileRun => (question, recorder, base) =>
  Effect.gen(function*() {
    let best: Note = yield* initialNoteStep(recorder, question, base)
    const queryLog: Array<string> = []
    const state = loopState(recorder, base.config)
    let reason: StopReason | undefined = stop(state(0))
    for (let n = 1; reason === undefined; n++) {
      const context: CallContext = { ...base, step: n }
      const outcome = yield* step({ question, recorder, context, best, queryLog }).pipe(
        withHotSpan("deepnote.step", { attributes: { "deepnote.step": n, "deepnote.item.id": base.questionId } })
      )
      best = outcome.best
      reason = outcome.stop ?? stop(state(n))
    }
    return yield* stopAndAnswer(recorder, question, base, best, reason)
  })
