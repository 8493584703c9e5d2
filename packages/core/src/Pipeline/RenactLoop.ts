import { Effect } from "effect"
import type { CallContext } from "../Domain/CallContext.js"
import { Note } from "../Domain/Note.js"
import type { StopReason } from "../Domain/StopReason.js"
import type { ProfileRun, StopPolicy } from "../Profiles/ProfileDefinition.js"
import { NoteWriter } from "../Services/NoteWriter.js"
import { loopState, stopAndAnswer } from "./NoteLoop.js"
import { selectNewQueries } from "./QueryLog.js"
import { planStage, retrieveStage } from "./Stages.js"

const linesOf = (text: string) => text.split("\n").map((l) => l.trim()).filter((l) => l.length > 0)

/**
 * The NotesWriting + ReAct loop. Each step the main model acts (`search[query]`, or `finish`: no query), the query is
 * retrieved alone, and every retrieved document becomes a note from (query, document, notes so far); the lines a note
 * adds to the notes are the step's observation. The loop ends on `finish`, on a repeated query, or by the stop policy;
 * the answer is written from the notes. There is no best note and no judge.
 */
export const renactLoop = (stop: StopPolicy): ProfileRun => (question, recorder, base) =>
  Effect.gen(function*() {
    const writer = yield* NoteWriter
    const notes: Array<string> = []
    const queryLog: Array<string> = []
    const state = loopState(recorder, base.config)
    let reason: StopReason | undefined = stop(state(0))
    for (let n = 1; reason === undefined; n++) {
      const context: CallContext = { ...base, step: n }
      reason = yield* Effect.gen(function*() {
        const { kept, plan } = yield* planStage(
          recorder,
          { question, bestNote: new Note({ text: notes.join("\n") }), queryLog: [...queryLog], count: 1 },
          context,
          // The first action is always a search: a finish before anything was read would answer from nothing.
          (plan) =>
            plan.queries.length === 0 && n === 1
              ? { kept: [question], dropped: [] }
              : selectNewQueries(plan.queries, question, queryLog, 1)
        )
        if (kept.length === 0) return plan.queries.length === 0 ? "finish" as const : "no-new-queries" as const
        queryLog.push(...kept)
        const query = kept[0]!
        const passages = yield* retrieveStage(
          recorder,
          {
            queries: [query],
            recallK: base.config.recallK,
            topK: base.config.topK,
            exclude: new Set(),
            rerankQuery: query
          },
          context
        )
        recorder.steps = n
        const start = yield* recorder.elapsed
        for (const passage of passages) {
          recorder.countCall("update")
          const written = yield* writer.update({
            question: query,
            bestNote: new Note({ text: notes.join("\n") }),
            passages: [passage],
            context
          })
          const known = new Set(notes)
          notes.push(...linesOf(written.text).filter((line) => !known.has(line)))
        }
        const durationMs = (yield* recorder.elapsed) - start
        const observed = new Note({ text: notes.join("\n") })
        yield* recorder.emit((c) => ({ _tag: "NoteUpdated", ...c, note: observed, durationMs }), n)
        return stop(state(n))
      }).pipe(
        Effect.withSpan("deepnote.step", { attributes: { "deepnote.step": n, "deepnote.item.id": base.questionId } })
      )
    }
    return yield* stopAndAnswer(recorder, question, base, new Note({ text: notes.join("\n") }), reason)
  })
