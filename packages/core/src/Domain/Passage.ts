import { Schema } from "effect"

/** A retrieved unit of text. `id` is unique within its source collection. */
export class Passage extends Schema.Class<Passage>("Passage")({
  id: Schema.String,
  title: Schema.String,
  text: Schema.String,
  /** Where it came from: a collection name, a retriever name or a file. */
  source: Schema.String,
  /** The score of the last ranking stage that ordered it (BM25, fusion or rerank); higher is better. */
  score: Schema.Number
}) {}

/** How a passage is shown to a role: `title: text` when it has a title. */
export const passageLabel = (p: Passage): string => (p.title ? `${p.title}: ${p.text}` : p.text)
