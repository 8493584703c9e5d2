import { Schema } from "effect"

/**
 * Dataset record formats:
 * - `ircot`: IRCoT processed (`question_id`, `question_text`, `answers_objects[].spans`, `contexts[]` with `is_supporting`);
 * - `hotpotqa`: official HotpotQA (`_id`, `question`, `answer`, `supporting_facts`, `context`, `type`, `level`);
 * - `musique`: MuSiQue (`id`, `question`, `answer`, `answer_aliases`, `paragraphs[]` with `is_supporting`);
 * - `2wiki`: 2WikiMultihopQA (as HotpotQA, plus `evidences` / `entity_ids`);
 * - `cmrc2018`: CMRC 2018 questions (`id`, `question`, `answers[]`, `paragraph_id`);
 * - `plain`: `{ id?, question, answers? | answer?, task?, language?, gold_titles?, qa_pairs? }`.
 */
export const DatasetFormat = Schema.Literal("ircot", "hotpotqa", "musique", "2wiki", "cmrc2018", "plain")
export type DatasetFormat = typeof DatasetFormat.Type

const has = (record: object, ...keys: ReadonlyArray<string>) => keys.every((k) => k in record)

/** Recognises a format from the keys of one record; `undefined` when none fits. */
export const detectFormat = (record: unknown): DatasetFormat | undefined => {
  if (typeof record !== "object" || record === null || Array.isArray(record)) return undefined
  if (has(record, "question_id", "question_text")) return "ircot"
  if (has(record, "question", "paragraphs")) return "musique"
  if (has(record, "_id", "question", "supporting_facts")) {
    return has(record, "evidences") || has(record, "entity_ids") ? "2wiki" : "hotpotqa"
  }
  if (has(record, "question", "paragraph_id", "answers")) return "cmrc2018"
  if (has(record, "question")) return "plain"
  return undefined
}
