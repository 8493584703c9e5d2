import { Schema } from "effect"
import { Language } from "./Language.js"
import { TaskType } from "./Task.js"

/** Question text: non-empty after trimming. */
export const QuestionText = Schema.Trim.pipe(
  Schema.nonEmptyString({ message: () => "the question is empty" })
)

/**
 * A gold (supporting) passage of a question: by its collection id, or by title and text together — never by title
 * alone, since many paragraphs share a title (MuSiQue has up to 18 under one).
 */
export const GoldPassage = Schema.Struct({
  id: Schema.optional(Schema.String),
  title: Schema.optional(Schema.String),
  text: Schema.optional(Schema.String)
})
export type GoldPassage = typeof GoldPassage.Type

/** A question to answer, optionally with gold answers (for evaluation). */
export class Question extends Schema.Class<Question>("Question")({
  id: Schema.String.pipe(Schema.nonEmptyString({ message: () => "question id is empty" })),
  text: QuestionText,
  answers: Schema.optional(Schema.Array(Schema.String)),
  task: Schema.optional(TaskType),
  language: Schema.optional(Language),
  /** Titles of gold (supporting) passages, for display; recall matches on them only when `goldPassages` is absent. */
  goldTitles: Schema.optional(Schema.Array(Schema.String)),
  /** The gold passages themselves (id, or title and text): what retrieval recall counts. */
  goldPassages: Schema.optional(Schema.Array(GoldPassage))
}) {}
