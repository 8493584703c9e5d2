import { Schema } from "effect"

/** A note: a compact, faithful digest of the evidence found so far for one question. */
export class Note extends Schema.Class<Note>("Note")({
  text: Schema.String
}) {
  static readonly empty = new Note({ text: "" })
}
