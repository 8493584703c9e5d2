import type { ItemDetail, ItemView } from "@deepnote/api"
import { scoreQuestion } from "@deepnote/eval"
import type { ItemRecord } from "@deepnote/store"

/** A stored question of a run as the API shows it in a page of results. */
export const toItemView = (record: ItemRecord): typeof ItemView.Type => ({
  itemId: record.itemId,
  seq: record.seq,
  status: record.status,
  question: record.question.text,
  gold: record.question.answers ?? [],
  ...(record.result === undefined ? {} : { answer: record.result.answer.text, result: record.result }),
  ...(record.error === undefined ? {} : { error: record.error })
})

/** One question in detail: its view, its scores by the task's metrics (when answered) and its gold passage titles. */
export const toItemDetail = (record: ItemRecord): ItemDetail => ({
  ...toItemView(record),
  metrics: record.status === "done" && record.result !== undefined
    ? scoreQuestion(record.question, record.result.answer.text)
    : {},
  ...((record.question.goldTitles?.length ?? 0) === 0 ? {} : { goldTitles: record.question.goldTitles })
})
