import { Schema } from "effect"
import { createHash } from "node:crypto"
import type { CorpusDocument } from "../Domain/CorpusDocument.js"

/**
 * A passage as stored in Meilisearch. Meilisearch ids allow only `[A-Za-z0-9_-]` (≤ 511 bytes), so the primary key
 * `key` is the passage id when it fits and a hash of it otherwise; `id` keeps the original.
 */
export interface MeiliDocument {
  readonly key: string
  readonly id: string
  readonly title: string
  readonly text: string
}

export const meiliKey = (id: string): string =>
  /^[A-Za-z0-9_-]{1,511}$/u.test(id) ? id : "h" + createHash("sha1").update(id).digest("hex")

export const toMeiliDocument = (d: CorpusDocument): MeiliDocument => ({
  key: meiliKey(d.id),
  id: d.id,
  title: d.title,
  text: d.text
})

/** One hit of `POST /indexes/{uid}/search` with `showRankingScore: true`. */
export const MeiliHit = Schema.Struct({
  id: Schema.Union(Schema.String, Schema.Number),
  title: Schema.optionalWith(Schema.String, { default: () => "" }),
  text: Schema.String,
  _rankingScore: Schema.optionalWith(Schema.Number, { default: () => 0 })
})

export const MeiliSearchReply = Schema.Struct({ hits: Schema.Array(MeiliHit) })
