import { Answer, Answerer, Judge, Note, NoteWriter, QueryPlanner, Verdict } from "@deepnote/core"
import { Effect, Layer } from "effect"
import { answerFrom } from "./Answerer.js"
import { judgeNotes } from "./Judge.js"
import { updateNote, writeInitialNote } from "./NoteWriter.js"
import type { ExtractiveOptions } from "./Options.js"
import { planQueries, planText } from "./Planner.js"

/** The engine's name, for manifests, logs and outputs: this is a non-neural baseline, not a language model. */
export const engineName = "extractive"

/**
 * The four roles (note writer, query planner, judge, answerer) as core services, built from the plain functions of
 * this package. Each call runs synchronously inside `Effect.sync`; spans (`NoteWriter.init`, …) come from the core
 * tags' `make`. The call context supplies the language and the task.
 */
export const layerWith = (options: ExtractiveOptions = {}) =>
  Layer.mergeAll(
    NoteWriter.layerFrom({
      init: (input) =>
        Effect.sync(() =>
          new Note({
            text: writeInitialNote(input.question, input.passages, { ...options, language: input.context.language })
          })
        ),
      update: (input) =>
        Effect.sync(() =>
          new Note({
            text: updateNote(input.question, input.bestNote.text, input.passages, {
              ...options,
              language: input.context.language
            })
          })
        )
    }),
    QueryPlanner.layerFrom({
      plan: (input) =>
        Effect.sync(() => {
          const queries = planQueries(input.question, input.bestNote.text, input.queryLog, input.count, {
            ...options,
            language: input.context.language
          })
          return { queries, raw: planText(queries) }
        })
    }),
    Judge.layerFrom({
      compare: (input) =>
        Effect.sync(() => {
          const judgement = judgeNotes(input.question, input.bestNote.text, input.candidate.text, {
            ...options,
            language: input.context.language
          })
          return new Verdict({ better: judgement.better, parsed: "rule", raw: judgement.reason })
        })
    }),
    Answerer.layerFrom({
      answer: (input) =>
        Effect.sync(() =>
          new Answer({
            text: answerFrom(input.question, input.evidence, {
              ...options,
              language: input.context.language,
              task: input.context.config.task
            })
          })
        )
    })
  )

/** The engine with default options. */
export const layer = layerWith()
