import { Schema } from "effect"
import { Language } from "./Language.js"
import { TaskType } from "./Task.js"

/** Question text: non-empty after trimming. */
export const QuestionText = Schema.Trim.pipe(
  Schema.nonEmptyString({ message: () => "the question is empty" })
)

/** A question to answer, optionally with gold answers (for evaluation). */
export class Question extends Schema.Class<Question>("Question")({
  id: Schema.String.pipe(Schema.nonEmptyString({ message: () => "question id is empty" })),
  text: QuestionText,
  answers: Schema.optional(Schema.Array(Schema.String)),
  task: Schema.optional(TaskType),
  language: Schema.optional(Language),
  /** Titles of gold (supporting) passages, used for retrieval recall. */
  goldTitles: Schema.optional(Schema.Array(Schema.String))
}) {}
