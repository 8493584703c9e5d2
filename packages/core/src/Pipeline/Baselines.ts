import { Effect } from "effect"
import type { Answer } from "../Domain/Answer.js"
import type { CallContext } from "../Domain/CallContext.js"
import type { PipelineError } from "../Domain/Errors.js"
import type { Note } from "../Domain/Note.js"
import type { Passage } from "../Domain/Passage.js"
import type { ProfileRoles, ProfileRun } from "../Profiles/ProfileDefinition.js"
import type { Recorder } from "./Recorder.js"
import { answerStage, initNoteStage, queryAlone, retrieveStage } from "./Stages.js"

const firstRetrieval = (question: string, recorder: Recorder, context: CallContext) =>
  retrieveStage(recorder, queryAlone(question, context.config), context)

/** A one-shot baseline as a profile's run: everything at step 0, stopped for the reason `baseline`. */
export const baselineRun = (
  pipeline: (question: string, recorder: Recorder, context: CallContext) => Effect.Effect<
    { readonly answer: Answer; readonly best: Note | undefined },
    PipelineError,
    ProfileRoles
  >
): ProfileRun =>
(question, recorder, base) =>
  pipeline(question, recorder, { ...base, step: 0 }).pipe(Effect.map((r) => ({ ...r, reason: "baseline" as const })))

/** `no-retrieval`: the answerer sees the question only. */
export const noRetrieval = (question: string, recorder: Recorder, context: CallContext) =>
  answerStage(recorder, question, { _tag: "None" }, context).pipe(Effect.map((answer) => ({ answer, best: undefined })))

/** `vanilla`: one retrieval, then the answer from the raw passages. */
export const vanilla = (question: string, recorder: Recorder, context: CallContext) =>
  Effect.gen(function*() {
    const passages: ReadonlyArray<Passage> = yield* firstRetrieval(question, recorder, context)
    const answer = yield* answerStage(recorder, question, { _tag: "Passages", passages }, context)
    return { answer, best: undefined }
  })

/** `init-note`: one retrieval, note initialisation, then the answer from that note. */
export const initNoteOnly = (question: string, recorder: Recorder, context: CallContext) =>
  Effect.gen(function*() {
    const passages = yield* firstRetrieval(question, recorder, context)
    const note = yield* initNoteStage(recorder, question, passages, context)
    const answer = yield* answerStage(recorder, question, { _tag: "Note", note }, context)
    return { answer, best: note }
  })
