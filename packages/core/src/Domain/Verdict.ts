import { Schema } from "effect"

/**
 * The judge's decision on whether a candidate note beats the best note.
 * `raw` is the judge's reply as received (for audit), `parsed` says how it was read.
 */
export class Verdict extends Schema.Class<Verdict>("Verdict")({
  better: Schema.Boolean,
  parsed: Schema.Literal("structured", "json", "fallback", "rule", "skipped"),
  raw: Schema.optional(Schema.String)
}) {}
