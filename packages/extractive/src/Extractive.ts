import {
  Answer,
  Answerer,
  type AnswererService,
  type AnswerEvidence,
  Judge,
  type JudgeService,
  Note,
  NoteWriter,
  type NoteWriterService,
  QueryPlanner,
  type QueryPlannerService,
  Verdict
} from "@deepnote-rag/core"
import { Context, Effect, Layer } from "effect"
import { answerFrom, type AnswerOptions } from "./Answerer.js"
import { judgeNotes } from "./Judge.js"
import { updateNote, writeInitialNote } from "./NoteWriter.js"
import type { ExtractiveOptions } from "./Options.js"
import { planQueries, planText } from "./Planner.js"

/** The four role implementations of the extractive engine. */
export interface ExtractiveRoles {
  readonly noteWriter: NoteWriterService
  readonly queryPlanner: QueryPlannerService
  readonly judge: JudgeService
  readonly answerer: AnswererService
}

/**
 * The four roles (note writer, query planner, judge, answerer) built from the plain functions of this package. Each
 * call runs synchronously inside `Effect.sync`; the call context supplies the language and the task.
 */
export const make = (options: ExtractiveOptions = {}): Effect.Effect<ExtractiveRoles> =>
  Effect.sync(() => ({
    noteWriter: {
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
    },
    queryPlanner: {
      plan: (input) =>
        Effect.sync(() => {
          const queries = planQueries(input.question, input.bestNote.text, input.queryLog, input.count, {
            ...options,
            language: input.context.language
          })
          return { queries, raw: planText(queries) }
        })
    },
    judge: {
      compare: (input) =>
        Effect.sync(() => {
          const judgement = judgeNotes(input.question, input.bestNote.text, input.candidate.text, {
            ...options,
            language: input.context.language
          })
          return new Verdict({ better: judgement.better, parsed: "rule", raw: judgement.reason })
        })
    },
    answerer: answerer(options)
  }))

/**
 * The answerer role over an answer function (default `answerFrom`): the call context supplies the language and the
 * task, on top of `options`. A caller that picks among the answer candidates itself passes its own `answer`.
 */
export const answerer = (
  options: ExtractiveOptions = {},
  answer: (question: string, evidence: AnswerEvidence, options: AnswerOptions) => string = answerFrom
): AnswererService => ({
  answer: (input) =>
    Effect.sync(() =>
      new Answer({
        text: answer(input.question, input.evidence, {
          ...options,
          language: input.context.language,
          task: input.context.config.task
        })
      })
    )
})

/**
 * The engine with default options: the four core role tags, each wrapped in its tag's spans (`NoteWriter.init`, …).
 */
export const layer: Layer.Layer<NoteWriter | QueryPlanner | Judge | Answerer> = Layer.effectContext(
  Effect.map(make(), (roles) =>
    Context.make(NoteWriter, NoteWriter.make(roles.noteWriter)).pipe(
      Context.add(QueryPlanner, QueryPlanner.make(roles.queryPlanner)),
      Context.add(Judge, Judge.make(roles.judge)),
      Context.add(Answerer, Answerer.make(roles.answerer))
    ))
)
