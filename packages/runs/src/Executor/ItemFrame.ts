import { RunMetrics } from "@deepnote-rag/core"
import { type ItemNotFound, type JournalMismatch, type RunNotFound, RunStore } from "@deepnote-rag/store"
import { Effect, Metric, Predicate } from "effect"
import { RunEvents } from "./RunEvents.js"

/**
 * The start of an item's work (a question or an align item): marked `running` unless a queue worker already claimed
 * it for this execution, and announced on the run's event hub.
 */
export const startItem = (runId: string, itemId: string, claimed: boolean | undefined) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const hub = yield* RunEvents
    if (claimed !== true) yield* store.markItemRunning(runId, itemId)
    yield* hub.publish({ _tag: "ItemStarted", runId, itemId })
  })

/** Store errors that cannot happen while an item runs (the executor read the run and the item). */
type StoreBug = RunNotFound | ItemNotFound | JournalMismatch
const storeBugTags: ReadonlyArray<StoreBug["_tag"]> = ["RunNotFound", "ItemNotFound", "JournalMismatch"]

/**
 * The frame of an item's work (a question or an align item): counted in flight while it runs, its logs annotated and
 * its span (`spanName`) attributed with the run and item ids. The run and the item exist (the executor read them):
 * anything else from the store but a StoreError is a bug, so those errors become defects here.
 */
export const itemFrame =
  (spanName: string, runId: string, itemId: string) =>
  <A, E, R>(self: Effect.Effect<A, E | StoreBug, R>): Effect.Effect<A, Exclude<E, StoreBug>, R> =>
    self.pipe(
      (work) =>
        Effect.acquireUseRelease(Metric.increment(RunMetrics.itemsInFlight), () =>
          work, () =>
          Metric.incrementBy(RunMetrics.itemsInFlight, -1)),
      Effect.annotateLogs({ "deepnote.run.id": runId, "deepnote.item.id": itemId }),
      (work) =>
        Effect.catchIf(work, (e): e is StoreBug =>
          storeBugTags.some((tag) => Predicate.isTagged(e, tag)), Effect.die),
      Effect.withSpan(spanName, { attributes: { "deepnote.run.id": runId, "deepnote.item.id": itemId } })
    )
