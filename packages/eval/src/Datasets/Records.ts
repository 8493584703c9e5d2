import { Language, TaskType } from "@deepnote-rag/core"
import { Schema } from "effect"
import { QaPair } from "../Metrics/Asqa.js"

const StringOrNumber = Schema.Union(Schema.String, Schema.Number)

/** IRCoT processed record (only the fields used). */
export const IrcotRecord = Schema.Struct({
  question_id: Schema.String,
  question_text: Schema.String,
  answers_objects: Schema.Array(Schema.Struct({
    spans: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
    number: Schema.optional(StringOrNumber),
    date: Schema.optional(Schema.Struct({
      day: Schema.optional(StringOrNumber),
      month: Schema.optional(StringOrNumber),
      year: Schema.optional(StringOrNumber)
    }))
  })),
  contexts: Schema.optionalWith(
    Schema.Array(Schema.Struct({
      title: Schema.String,
      paragraph_text: Schema.optional(Schema.String),
      is_supporting: Schema.optionalWith(Schema.Boolean, { default: () => false })
    })),
    { default: () => [] }
  )
})

/** Official HotpotQA and 2WikiMultihopQA record (`supporting_facts` are `[title, sentence index]`). */
export const HotpotRecord = Schema.Struct({
  _id: Schema.String,
  question: Schema.String,
  answer: Schema.String,
  supporting_facts: Schema.optionalWith(Schema.Array(Schema.Tuple(Schema.String, Schema.Number)), {
    default: () => []
  }),
  /** `[title, sentences]`: a supporting paragraph's text is its sentences joined. */
  context: Schema.optionalWith(Schema.Array(Schema.Tuple(Schema.String, Schema.Array(Schema.String))), {
    default: () => []
  }),
  type: Schema.optional(Schema.String)
})

/** MuSiQue record. */
export const MusiqueRecord = Schema.Struct({
  id: Schema.String,
  question: Schema.String,
  answer: Schema.String,
  answer_aliases: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  paragraphs: Schema.Array(Schema.Struct({
    title: Schema.String,
    paragraph_text: Schema.optional(Schema.String),
    is_supporting: Schema.optionalWith(Schema.Boolean, { default: () => false })
  }))
})

/** CMRC 2018 question record. */
export const CmrcRecord = Schema.Struct({
  id: Schema.String,
  question: Schema.String,
  answers: Schema.Array(Schema.String),
  paragraph_id: Schema.optional(Schema.String)
})

/** Plain JSONL question. */
export const PlainRecord = Schema.Struct({
  id: Schema.optional(StringOrNumber),
  question: Schema.String,
  answers: Schema.optional(Schema.Array(Schema.String)),
  answer: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))),
  task: Schema.optional(TaskType),
  language: Schema.optional(Language),
  gold_titles: Schema.optional(Schema.Array(Schema.String)),
  /** Gold passages by collection id, or by title and text. */
  gold_passages: Schema.optional(Schema.Array(Schema.Struct({
    id: Schema.optional(Schema.String),
    title: Schema.optional(Schema.String),
    text: Schema.optional(Schema.String)
  }))),
  qa_pairs: Schema.optional(Schema.Array(QaPair))
})
