import { Schema } from "effect"

/** The final answer produced by the Answerer. */
export class Answer extends Schema.Class<Answer>("Answer")({
  text: Schema.String
}) {}
