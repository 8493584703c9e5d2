import { createHash } from "node:crypto"

/** One passage to index: the unit of retrieval. */
export interface CorpusDocument {
  readonly id: string
  readonly title: string
  readonly text: string
  /** Extra fields of the source record, kept as JSON (never indexed). */
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
}

/** Collapses runs of whitespace to one space and trims. */
export const normalizeWhitespace = (text: string): string => text.replace(/\s+/gu, " ").trim()

/**
 * The id of a passage that has none: `p` + the first 12 hex digits of SHA-1 over `title + "\n" + text`
 * (whitespace collapsed). This is the scheme of `corpus/en-multihop.jsonl`, so paragraphs read from the QA files
 * get the same ids as the shared corpus and deduplicate against it.
 */
export const passageId = (title: string, text: string): string =>
  "p" + createHash("sha1").update(`${title}\n${normalizeWhitespace(text)}`).digest("hex").slice(0, 12)
