import type { SpanRecord } from "../TraceFile/SpanRecord.js"

/** A span with its recorded children, in start order. */
export interface SpanNode {
  readonly span: SpanRecord
  readonly children: ReadonlyArray<SpanNode>
}

/** Spans whose parent was not recorded (the process died before the parent ended) are roots, marked `orphan`. */
export interface SpanRoot extends SpanNode {
  readonly orphan: boolean
}

const byStart = (
  a: SpanNode,
  b: SpanNode
) => (a.span.startTimeUnixNano < b.span.startTimeUnixNano
  ? -1
  : a.span.startTimeUnixNano > b.span.startTimeUnixNano
  ? 1
  : 0)

/** Builds the span trees of a set of records (duplicates, e.g. a file listed twice, count once). */
export const buildForest = (records: ReadonlyArray<SpanRecord>): ReadonlyArray<SpanRoot> => {
  const unique = new Map<string, SpanRecord>()
  for (const record of records) unique.set(`${record.traceId}/${record.spanId}`, record)
  const children = new Map<string, Array<SpanRecord>>()
  for (const record of unique.values()) {
    if (record.parentSpanId === undefined) continue
    const key = `${record.traceId}/${record.parentSpanId}`
    const list = children.get(key)
    if (list === undefined) children.set(key, [record])
    else list.push(record)
  }
  const node = (span: SpanRecord): SpanNode => ({
    span,
    children: (children.get(`${span.traceId}/${span.spanId}`) ?? []).map(node).sort(byStart)
  })
  const roots: Array<SpanRoot> = []
  for (const record of unique.values()) {
    const parentKnown = record.parentSpanId !== undefined && unique.has(`${record.traceId}/${record.parentSpanId}`)
    if (!parentKnown) roots.push({ ...node(record), orphan: record.parentSpanId !== undefined })
  }
  return roots.sort(byStart)
}

/** Every node of a tree, depth first. */
export const descendants = (node: SpanNode): ReadonlyArray<SpanNode> => [node, ...node.children.flatMap(descendants)]

export interface QuestionFilter {
  readonly runId?: string | undefined
  readonly itemId?: string | undefined
}

const attr = (node: SpanNode, key: string) => {
  const value = node.span.attributes[key]
  return value === undefined ? undefined : String(value)
}

/**
 * The question trees to show: every `deepnote.question` span matching the filter, plus orphan trees (questions cut off
 * before their span ended) whose spans name a matching item. A question run twice (e.g. resumed) appears twice.
 */
export const selectQuestions = (forest: ReadonlyArray<SpanRoot>, filter: QuestionFilter): ReadonlyArray<SpanNode> => {
  const matches = (node: SpanNode) =>
    (filter.runId === undefined || attr(node, "deepnote.run.id") === filter.runId) &&
    (filter.itemId === undefined || attr(node, "deepnote.item.id") === filter.itemId)
  const questions = forest.flatMap(descendants).filter((n) => n.span.name === "deepnote.question" && matches(n))
  const orphans = forest.filter((root) =>
    root.orphan && root.span.name !== "deepnote.question" &&
    descendants(root).some((n) =>
      attr(n, "deepnote.item.id") !== undefined &&
      (filter.itemId === undefined || attr(n, "deepnote.item.id") === filter.itemId)
    ) &&
    // an orphan tree is left out only when it names another run (its own run span may not have been recorded)
    (filter.runId === undefined || descendants(root).every((n) =>
      attr(n, "deepnote.run.id") === undefined || attr(n, "deepnote.run.id") === filter.runId
    ))
  )
  return [...questions, ...orphans].sort(byStart)
}

/** The `deepnote.run` spans of a run (one per execution: run, then each resume). */
export const selectRuns = (forest: ReadonlyArray<SpanRoot>, runId: string | undefined): ReadonlyArray<SpanNode> =>
  forest.flatMap(descendants).filter((n) =>
    n.span.name === "deepnote.run" && (runId === undefined || attr(n, "deepnote.run.id") === runId)
  )
