import { createHash } from "node:crypto"
import type { NewPassageRow, NewTextRow } from "./passageRows.js"
import { storedBytesOf } from "./storedJson.js"

/**
 * Passages stored once per run. The same passages used to be stored three times per question (the retrieval's journal
 * entry, the `Retrieved` event, the result's trace): about 74 KB per HotpotQA question, most of it passage text. Now a
 * stored JSON value (a journal response, an event, a result) holds `{ "$passage": hash, "score": … }` where a passage
 * was, and the `passages` table holds its id, source, title and (deflated, `storedJson.ts`) text once per run, keyed by
 * their hash: writing needs no read (a passage is content-addressed: another text under the same id is another row),
 * and a passage that several questions read is one row. Notes are repeated the same way (the role's journal entry, its
 * event, the result's trace and best note): every string of 256 characters or more becomes `{ "$text": hash }`, its
 * text stored once per run in `texts`. Readers get everything back (`hydrate` in `passageRefs.ts`), so what the API, the event stream, eval
 * and export see is unchanged. Values written before the `passages` table existed hold passages inline and are read as
 * they are.
 */

/**
 * Stored bodies of recent passages and texts, by hash. A question writes each passage three times (its retrieval's
 * journal entry, its event, its result) and each note up to three times; every write but the first is a conflict the
 * insert ignores, so the body is deflated once here instead of each time (the hash names the content, so a body
 * never goes stale). First in, first out, at most `recentBodiesLimit` (≈ 1–2 MB).
 */
const recentBodies = new Map<string, Uint8Array>()
const recentBodiesLimit = 4096

const bodyOf = (hash: string, text: string): Uint8Array => {
  const known = recentBodies.get(hash)
  if (known !== undefined) return known
  const bytes = storedBytesOf(text)
  if (recentBodies.size >= recentBodiesLimit) {
    for (const oldest of recentBodies.keys()) {
      recentBodies.delete(oldest)
      break
    }
  }
  recentBodies.set(hash, bytes)
  return bytes
}

export const refKey = "$passage"
export const textKey = "$text"

/** Strings at least this long (notes, raw replies) are stored once per run and referred to by their hash. */
const longText = 256

/** 132 bits of SHA-256 of the parts: a passage's or a text's key within its run. */
const hashOf = (...parts: ReadonlyArray<string>) => {
  const hash = createHash("sha256")
  for (const part of parts) hash.update(part).update("\u0000")
  return hash.digest("base64url").slice(0, 22)
}

/** An encoded `Passage` (exactly its five fields), as every schema that holds one encodes it. */
interface InlinePassage {
  readonly id: string
  readonly title: string
  readonly text: string
  readonly source: string
  readonly score: number
}

const isInlinePassage = (value: Record<string, unknown>): value is Record<string, unknown> & InlinePassage => {
  let n = 0
  for (const _ in value) n++
  return n === 5 && typeof value.id === "string" && typeof value.title === "string" &&
    typeof value.text === "string" && typeof value.source === "string" && typeof value.score === "number"
}

/**
 * Rebuilds `value` with every object replaced by `f`'s answer (undefined: keep it and walk into it) and every string
 * by `g`'s; unchanged parts are shared, not copied.
 */
export const rewrite = (
  value: unknown,
  f: (object: Record<string, unknown>) => unknown,
  g: (text: string) => unknown = (text) => text
): unknown => {
  if (typeof value === "string") return g(value)
  if (Array.isArray(value)) {
    let out: Array<unknown> | undefined
    for (let i = 0; i < value.length; i++) {
      const next = rewrite(value[i], f, g)
      if (next !== value[i]) {
        out ??= value.slice()
        out[i] = next
      }
    }
    return out ?? value
  }
  if (typeof value !== "object" || value === null) return value
  const object = value as Record<string, unknown>
  const replaced = f(object)
  if (replaced !== undefined) return replaced
  let out: Record<string, unknown> | undefined
  for (const key in object) {
    const next = rewrite(object[key], f, g)
    if (next !== object[key]) {
      out ??= { ...object }
      out[key] = next
    }
  }
  return out ?? object
}

/** Adds the hashes that `value` refers to (passages, texts) to `passages` and `texts`. */
export const collectRefs = (value: unknown, passages: Set<string>, texts: Set<string>): void => {
  if (Array.isArray(value)) {
    for (const element of value) collectRefs(element, passages, texts)
    return
  }
  if (typeof value !== "object" || value === null) return
  const object = value as Record<string, unknown>
  const passage = object[refKey]
  if (typeof passage === "string") return void passages.add(passage)
  const text = object[textKey]
  if (typeof text === "string") return void texts.add(text)
  for (const key in object) collectRefs(object[key], passages, texts)
}

/** Values to store, with the passage and text rows they refer to (written before them, in the same transaction). */
export interface Dehydrated {
  readonly stored: ReadonlyArray<unknown>
  readonly passages: ReadonlyArray<NewPassageRow>
  readonly texts: ReadonlyArray<NewTextRow>
}

/** Replaces each passage and long text of `values` by a reference (see above); pure, no database. */
export const dehydrateValues = (runId: string, values: ReadonlyArray<unknown>): Dehydrated => {
  const passages = new Map<string, NewPassageRow>()
  const texts = new Map<string, NewTextRow>()
  const stored = values.map((value) =>
    rewrite(value, (object) => {
      if (!isInlinePassage(object)) return undefined
      const hash = hashOf(object.id, object.source, object.title, object.text)
      if (!passages.has(hash)) {
        const { id, source, text, title } = object
        passages.set(hash, { run_id: runId, hash, id, source, title, text: bodyOf(hash, text) })
      }
      return { [refKey]: hash, score: object.score }
    }, (text) => {
      if (text.length < longText) return text
      const hash = hashOf(text)
      if (!texts.has(hash)) texts.set(hash, { run_id: runId, hash, text: bodyOf(hash, text) })
      return { [textKey]: hash }
    })
  )
  return { stored, passages: [...passages.values()], texts: [...texts.values()] }
}
