import { Effect } from "effect"
import { Note } from "../Domain/Note.js"
import type { ProfileRun, StopPolicy } from "../Profiles/ProfileDefinition.js"
import { NoteWriter } from "../Services/NoteWriter.js"
import { oneQueryLoop, type QueryStep } from "./OneQueryLoop.js"
import { queryAlone, retrieveStage } from "./Stages.js"

const linesOf = (text: string) => text.split("\n").map((l) => l.trim()).filter((l) => l.length > 0)

/** A ReNAct step: the query retrieved alone, each document written into a note; the new lines are the observation. */
const renactStep: QueryStep = ({ context, lines, query, recorder }) =>
  Effect.gen(function*() {
    const writer = yield* NoteWriter
    const passages = yield* retrieveStage(recorder, queryAlone(query, context.config), context)
    recorder.steps = context.step
    const start = yield* recorder.elapsed
    for (const passage of passages) {
      recorder.countCall("update")
      const written = yield* writer.update({
        question: query,
        bestNote: new Note({ text: lines.join("\n") }),
        passages: [passage],
        context
      })
      const known = new Set(lines)
      lines.push(...linesOf(written.text).filter((line) => !known.has(line)))
    }
    return (yield* recorder.elapsed) - start
  })

/**
 * The NotesWriting + ReAct loop. Each step the main model acts (`search[query]`, or `finish`: no query), the query is
 * retrieved alone, and every retrieved document becomes a note from (query, document, notes so far); the lines a note
 * adds to the notes are the step's observation. The loop ends on `finish`, on a repeated query, or by the stop policy;
 * the answer is written from the notes. There is no best note and no judge.
 */
export const renactLoop = (stop: StopPolicy): ProfileRun => oneQueryLoop(renactStep, stop)
