import { createHash } from "node:crypto"
import type { CorpusDocument } from "../Domain/CorpusDocument.js"

/**
 * A passage as stored in Meilisearch. Meilisearch ids allow only `[A-Za-z0-9_-]` (≤ 511 bytes), and one invalid id
 * fails its whole upload task, so the primary key `key` is the passage id when it fits and a hash of it otherwise;
 * `id` keeps the original (what retrieval returns).
 */
export interface MeiliDocument {
  readonly key: string
  readonly id: string
  readonly title: string
  readonly text: string
}

/** The index's primary key attribute. */
export const primaryKey = "key"

export const meiliKey = (id: string): string =>
  /^[A-Za-z0-9_-]{1,511}$/u.test(id) ? id : "h" + createHash("sha1").update(id).digest("hex")

export const toMeiliDocument = (d: CorpusDocument): MeiliDocument => ({
  key: meiliKey(d.id),
  id: d.id,
  title: d.title,
  text: d.text
})
