import { Schema } from "effect"

/** A dataset cannot be loaded: the file is unreadable, its format unknown, or (with `onBadLine: "fail"`) a bad record. */
export class DatasetError extends Schema.TaggedError<DatasetError>()("DatasetError", {
  path: Schema.String,
  line: Schema.optional(Schema.Int),
  field: Schema.optional(Schema.String),
  reason: Schema.String
}) {
  override get message(): string {
    const where = this.line === undefined ? this.path : `${this.path}:${this.line}`
    return this.field === undefined ? `${where}: ${this.reason}` : `${where}: ${this.field}: ${this.reason}`
  }
}

/** A record that was skipped, with its 1-based line (record number for JSON arrays) and the offending field. */
export const BadLine = Schema.Struct({
  path: Schema.String,
  line: Schema.Int,
  field: Schema.optional(Schema.String),
  message: Schema.String
})
export type BadLine = typeof BadLine.Type

/** `file:line: field: message`. */
export const formatBadLine = (bad: BadLine): string =>
  bad.field === undefined
    ? `${bad.path}:${bad.line}: ${bad.message}`
    : `${bad.path}:${bad.line}: ${bad.field}: ${bad.message}`
