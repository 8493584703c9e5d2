import { Schema } from "effect"
import { PipelineResult } from "./PipelineResult.js"
import { RunConfig } from "./RunConfig.js"

/**
 * One answered question with how it was produced: what `deepnote ask --json` prints, `deepnote inspect` reads and
 * `POST /v1/ask` returns.
 */
export class AnswerRecord extends Schema.Class<AnswerRecord>("AnswerRecord")({
  /** `extractive` (the offline baseline) or `llm`. */
  engine: Schema.String,
  collection: Schema.optional(Schema.String),
  config: RunConfig,
  result: PipelineResult
}) {}
