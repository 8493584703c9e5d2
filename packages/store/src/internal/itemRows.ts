import { AlignItemResult, Question } from "@deepnote-rag/core"
import type { Effect, Option } from "effect"
import { Schema } from "effect"
import type { ItemNotFound, RunNotFound, StoreError } from "../Domain/Errors.js"
import { ItemError, ItemRecord, ItemResult, ItemStatus } from "../Domain/Item.js"
import { orUndefined } from "./sql.js"
import { storedJson, StoredJsonValue } from "./storedJson.js"

/** An `items` row, its result decoded. */
export const ItemRow = Schema.Struct({
  run_id: Schema.String,
  item_id: Schema.String,
  seq: Schema.Int,
  status: ItemStatus,
  attempts: Schema.Int,
  question: storedJson(Question),
  result: Schema.NullOr(storedJson(ItemResult)),
  error: Schema.NullOr(Schema.parseJson(ItemError)),
  started_at: Schema.NullOr(Schema.Date),
  finished_at: Schema.NullOr(Schema.Date),
  elapsed_ms: Schema.NullOr(Schema.Number)
})

/** An `items` row as read: `result` is the encoded result with its passages referred to (`passageRefs.ts`). */
export const RawItemRow = Schema.Struct({ ...ItemRow.fields, result: Schema.NullOr(StoredJsonValue) })

/** Which item: the key of every item-level statement. */
export const ItemKey = Schema.Struct({ runId: Schema.String, itemId: Schema.String })

/** What `RETURNING seq` answers: the row was there (and matched). */
export const Seq = Schema.Struct({ seq: Schema.Int })

/** A decoded row as the store's `ItemRecord`. */
export const toItemRecord = (r: typeof ItemRow.Type): ItemRecord =>
  new ItemRecord({
    runId: r.run_id,
    itemId: r.item_id,
    seq: r.seq,
    status: r.status,
    attempts: r.attempts,
    question: r.question,
    ...(r.result === null ? {} : r.result instanceof AlignItemResult ? { align: r.result } : { result: r.result }),
    error: orUndefined(r.error),
    startedAt: orUndefined(r.started_at),
    finishedAt: orUndefined(r.finished_at),
    elapsedMs: orUndefined(r.elapsed_ms)
  })

/** The lookups that item writes share with the reads: one item's row, and the right error when it is missing. */
export interface ItemLookups {
  readonly selectItem: (key: typeof ItemKey.Type) => Effect.Effect<Option.Option<typeof RawItemRow.Type>, StoreError>
  /** `ItemNotFound`, or `RunNotFound` when the run itself is missing. */
  readonly notFound: (runId: string, itemId: string) => Effect.Effect<never, RunNotFound | ItemNotFound | StoreError>
}
