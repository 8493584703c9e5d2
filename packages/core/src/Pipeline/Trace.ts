import type { Note } from "../Domain/Note.js"
import type { PipelineEvent } from "../Domain/PipelineEvent.js"
import type { PipelineResult } from "../Domain/PipelineResult.js"

type Trace = PipelineResult["trace"]
type Mutable<T> = { -readonly [K in keyof T]: Array<T[K] extends ReadonlyArray<infer E> ? E : never> }

/**
 * A question's trace (queries, passages, notes with their verdicts) as a fold over the events it published: the events
 * are the one record of what happened, and the trace is a view of them.
 *
 * A judged note is the note written at that step (`NoteUpdated`); a step that found nothing new is judged without a
 * rewrite, so its candidate is the best note itself. A note no verdict judges (the loops without a judge of notes:
 * `renact`'s notes, `deeprag`'s chain) enters as written, without a verdict, as the best note of its step.
 */
export const traceOf = (events: Iterable<PipelineEvent>): Trace => {
  const trace: Mutable<Trace> = { queries: [], passages: [], notes: [] }
  let best: Note | undefined
  let written: { readonly step: number; readonly note: Note } | undefined
  let unjudged = false
  const flush = () => {
    if (written !== undefined && unjudged) trace.notes.push({ step: written.step, note: written.note, best: true })
    unjudged = false
  }
  for (const event of events) {
    switch (event._tag) {
      case "QueriesPlanned":
        for (const query of event.queries) trace.queries.push({ step: event.step, query })
        break
      case "Retrieved":
        for (const passage of event.passages) trace.passages.push({ step: event.step, passage })
        break
      case "NoteInitialised":
        best = event.note
        trace.notes.push({ step: event.step, note: event.note, best: true })
        break
      case "NoteUpdated":
        flush()
        written = { step: event.step, note: event.note }
        unjudged = true
        break
      case "Judged": {
        const candidate = written?.step === event.step ? written.note : best
        if (written?.step === event.step) unjudged = false
        if (candidate === undefined) break
        trace.notes.push({ step: event.step, note: candidate, verdict: event.verdict, best: event.verdict.better })
        if (event.verdict.better) best = candidate
        break
      }
      default:
        break
    }
  }
  flush()
  return trace
}
