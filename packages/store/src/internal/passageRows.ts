import { Schema } from "effect"
import { storedJson } from "./storedJson.js"

/** A passage of a run as the `passages` table holds it (its text deflated, `storedJson.ts`), keyed by its hash. */
export const PassageRow = Schema.Struct({
  run_id: Schema.String,
  hash: Schema.String,
  id: Schema.String,
  source: Schema.String,
  title: Schema.String,
  text: storedJson(Schema.String)
})
export type PassageRow = typeof PassageRow.Type

/** A long text of a run (a note, a raw reply) as the `texts` table holds it, keyed by its hash. */
export const TextRow = Schema.Struct({
  run_id: Schema.String,
  hash: Schema.String,
  text: storedJson(Schema.String)
})
export type TextRow = typeof TextRow.Type

/** Rows as written: the bodies already encoded (`dehydrateValues`). */
export const NewPassageRow = Schema.Struct({ ...PassageRow.fields, text: Schema.Uint8ArrayFromSelf })
export type NewPassageRow = typeof NewPassageRow.Type
export const NewTextRow = Schema.Struct({ ...TextRow.fields, text: Schema.Uint8ArrayFromSelf })
export type NewTextRow = typeof NewTextRow.Type
