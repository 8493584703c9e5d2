import { counted } from "../Counted.js"
import type { PipelineEvent } from "./PipelineEvent.js"

const list = (items: ReadonlyArray<string>, max: number) =>
  items.slice(0, max).map((item) => JSON.stringify(item)).join(", ") +
  (items.length > max ? ` (+${items.length - max} more)` : "")

/**
 * One line saying what an event did (step, queries, passages read, verdict), for people watching a question as it
 * runs: the CLI's live steps and the chat facade's `reasoning_content`. `undefined` for the answer itself, which
 * streams on its own.
 */
export const describeEvent = (event: PipelineEvent): string | undefined => {
  switch (event._tag) {
    case "Retrieved":
      return `step ${event.step}: read ${counted(event.passages.length, "passage")}` +
        (event.passages.length > 0 ? ` (${list(event.passages.map((p) => p.title || p.id), 5)})` : "") +
        ` for ${list(event.queries, 3)}`
    case "NoteInitialised":
      return `step ${event.step}: wrote the first note (${event.note.text.length} characters)`
    case "QueriesPlanned":
      return `step ${event.step}: planned ${event.queries.length === 0 ? "no new query" : list(event.queries, 5)}` +
        (event.dropped.length > 0 ? ` (dropped ${event.dropped.length} repeated)` : "")
    case "NoteUpdated":
      return `step ${event.step}: rewrote the note (${event.note.text.length} characters)`
    case "Judged":
      return `step ${event.step}: verdict ${
        event.verdict.better ? "better: new best note" : "not better: note rejected"
      } (${counted(event.failures, "failure")})`
    case "Stopped":
      return `stopped after step ${event.step}: ${event.reason}`
    case "Answered":
      return undefined
    case "Failed":
      return `step ${event.step}: failed: ${event.message}`
  }
}
