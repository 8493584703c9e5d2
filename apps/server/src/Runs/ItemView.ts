import type { ItemDetail, ItemView } from "@deepnote-rag/api"
import { isGold, metricsOf, scoresOf } from "@deepnote-rag/eval"
import type { ItemRecord } from "@deepnote-rag/store"

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

/** A page of items, each with its scores as the comparison counts them (`scoresOf` over the page's task metrics). */
export const toScoredItemViews = (records: ReadonlyArray<ItemRecord>): ReadonlyArray<typeof ItemView.Type> => {
  const names = metricsOf(records.map((r) => r.question))
  return records.map((record) => ({ ...toItemView(record), metrics: scoresOf(record, names) }))
}

/** The ids of the trace's passages that `isGold` accepts (by id, or by title and text together), once each. */
const goldPassageIds = (record: ItemRecord): ReadonlyArray<string> => {
  if (record.result === undefined) return []
  const gold = isGold(record.question)
  return [...new Set(record.result.trace.passages.flatMap((p) => gold(p.passage) ? [p.passage.id] : []))]
}

/**
 * One question in detail: its view, its scores as the results page and the comparison count them (`scoresOf`), its gold passage titles (for
 * display) and the ids of the gold passages it read, and its trace id with the command that shows the trace when the
 * home holds a trace file of the run.
 */
export const toItemDetail = (record: ItemRecord, options: { readonly traceRecorded: boolean }): ItemDetail => {
  const traceId = record.result?.traceId
  return {
    ...toItemView(record),
    metrics: scoresOf(record, metricsOf([record.question])),
    ...((record.question.goldTitles?.length ?? 0) === 0 ? {} : { goldTitles: record.question.goldTitles }),
    goldPassageIds: goldPassageIds(record),
    ...(traceId === undefined ? {} : { traceId }),
    ...(traceId === undefined || !options.traceRecorded
      ? {}
      : { traceCommand: `deepnote trace ${record.runId} --item ${record.itemId}` })
  }
}
