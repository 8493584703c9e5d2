import { RunMetrics, withTags } from "@deepnote-rag/core"
import { type ItemResult, type JournalAppend, RunStore } from "@deepnote-rag/store"
import { Effect, Either, Metric } from "effect"
import { RunEvents } from "./RunEvents.js"

/** What an item's work ended with: its result, or the error that failed it. */
export type Settled = Either.Either<
  ItemResult & { readonly elapsedMs: number },
  { readonly _tag: string; readonly message: string }
>

/**
 * The end of an item whose work finished (a question or an align item): stored `done` with its result or `failed`
 * with its error, announced on the run's event hub, counted in the run metrics. `llmCalls`: what `ItemDone` reports.
 */
export const settleItem = (input: {
  readonly runId: string
  readonly itemId: string
  readonly outcome: Settled
  readonly stats: { readonly executed: number; readonly replayed: number }
  readonly llmCalls: number
  /** Journal entries not written yet, stored in the same transaction as the outcome. */
  readonly journal?: ReadonlyArray<JournalAppend> | undefined
}) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const hub = yield* RunEvents
    const { itemId, outcome, runId, stats } = input
    if (Either.isRight(outcome)) {
      const result = outcome.right
      yield* store.completeItem({ runId, itemId, result, elapsedMs: result.elapsedMs, journal: input.journal })
      yield* hub.publish({ _tag: "ItemDone", runId, itemId, llmCalls: input.llmCalls, elapsedMs: result.elapsedMs })
    } else {
      const error = outcome.left
      yield* store.failItem({
        runId,
        itemId,
        error: { tag: error._tag, message: error.message },
        journal: input.journal
      })
      yield* hub.publish({ _tag: "ItemFailed", runId, itemId, message: error.message })
    }
    yield* Metric.increment(withTags(RunMetrics.items, { outcome: Either.isRight(outcome) ? "done" : "failed" }))
    yield* Metric.incrementBy(withTags(RunMetrics.calls, { source: "executed" }), stats.executed)
    yield* Metric.incrementBy(withTags(RunMetrics.calls, { source: "replayed" }), stats.replayed)
    return { itemId, ok: Either.isRight(outcome), stopped: false, ...stats }
  })
