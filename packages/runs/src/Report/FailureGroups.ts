import { RunStore } from "@deepnote-rag/store"
import { Effect, Stream } from "effect"

/** Failed questions that share a reason. */
export interface FailureGroup {
  /** The reason, with numbers (ports, counts, times) replaced by `#`, so that the same failure groups together. */
  readonly reason: string
  readonly count: number
  /** A few of the failed question ids. */
  readonly examples: ReadonlyArray<string>
}

const reasonOf = (tag: string, message: string): string => {
  const text = message.replace(/\s+/gu, " ").replace(/\d+(\.\d+)?/gu, "#").trim()
  return `${tag}: ${text.length > 160 ? `${text.slice(0, 157)}…` : text}`
}

/** A run's failed questions grouped by reason, most frequent first (read as a stream: memory stays bounded). */
export const failureGroups = (runId: string, maxGroups = 5) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const groups = new Map<string, { count: number; examples: Array<string> }>()
    yield* Stream.runForEach(store.results(runId, { statuses: ["failed"] }), (item) =>
      Effect.sync(() => {
        const reason = reasonOf(item.error?.tag ?? "Error", item.error?.message ?? "no message")
        const group = groups.get(reason) ?? { count: 0, examples: [] }
        group.count++
        if (group.examples.length < 3) group.examples.push(item.itemId)
        groups.set(reason, group)
      }))
    return [...groups.entries()]
      .map(([reason, g]): FailureGroup => ({ reason, count: g.count, examples: g.examples }))
      .sort((a, b) => b.count - a.count)
      .slice(0, maxGroups)
  })
