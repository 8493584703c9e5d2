import { Schema } from "effect"
import { StoredJsonValue } from "./storedJson.js"

/** An `events` row; `event` is the encoded event with its passages referred to (`passageRefs.ts`). */
export const EventRow = Schema.Struct({
  run_id: Schema.String,
  seq: Schema.Int,
  item_id: Schema.String,
  event: StoredJsonValue,
  created_at: Schema.Date
})
