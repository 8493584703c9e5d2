import { Question, sha256Hex } from "@deepnote-rag/core"

/**
 * A question asked on its own (CLI `ask`, HTTP `ask`, the chat facade), outside any dataset: its id is derived from
 * its text (`ask-` + 12 hex digits of its SHA-256), so the same question gets the same id, and the same sticky route.
 */
export const adHocQuestion = (text: string): Question =>
  new Question({ id: `ask-${sha256Hex(text).slice(0, 12)}`, text })
