import type { PipelineEvent } from "@deepnote-rag/core"
import { Context, Effect, Layer, PubSub, Queue, type Scope, Stream } from "effect"

/** What a running run tells its observers (progress bars, SSE streams, tests). */
export type RunEvent =
  | { readonly _tag: "RunStarted"; readonly runId: string; readonly total: number; readonly pending: number }
  | { readonly _tag: "ItemStarted"; readonly runId: string; readonly itemId: string }
  | { readonly _tag: "ItemEvent"; readonly runId: string; readonly itemId: string; readonly event: PipelineEvent }
  | {
    readonly _tag: "ItemDone"
    readonly runId: string
    readonly itemId: string
    readonly llmCalls: number
    readonly elapsedMs: number
  }
  | { readonly _tag: "ItemFailed"; readonly runId: string; readonly itemId: string; readonly message: string }
  | { readonly _tag: "RunFinished"; readonly runId: string; readonly status: string }

export interface RunEventsService {
  readonly publish: (event: RunEvent) => Effect.Effect<void>
  /** Events from now on; the queue lives as long as the scope. */
  readonly subscribe: Effect.Effect<Queue.Dequeue<RunEvent>, never, Scope.Scope>
  readonly stream: Stream.Stream<RunEvent>
}

/** An in-process hub of run events (sliding: a slow observer loses old events, never blocks the run). */
export class RunEvents extends Context.Tag("@deepnote-rag/runs/RunEvents")<RunEvents, RunEventsService>() {
  static readonly layer = Layer.scoped(
    RunEvents,
    Effect.gen(function*() {
      const hub = yield* Effect.acquireRelease(PubSub.sliding<RunEvent>(4096), PubSub.shutdown)
      return {
        publish: (event) => PubSub.publish(hub, event).pipe(Effect.asVoid),
        subscribe: PubSub.subscribe(hub),
        stream: Stream.fromPubSub(hub)
      }
    })
  )
}
