import { Context, Effect, Layer } from "effect"
import type { PipelineEvent } from "../Domain/PipelineEvent.js"

export interface EventSinkService {
  readonly publish: (event: PipelineEvent) => Effect.Effect<void>
}

/** Receives pipeline events as they happen. Optional: without it, events are dropped. */
export class EventSink extends Context.Tag("@deepnote-rag/core/EventSink")<EventSink, EventSinkService>() {
  static readonly layer = (publish: (event: PipelineEvent) => Effect.Effect<void>) =>
    Layer.succeed(EventSink, EventSink.of({ publish }))

  /** Publishes to the sink in context, if any. */
  static readonly emit = (event: PipelineEvent): Effect.Effect<void> =>
    Effect.serviceOption(EventSink).pipe(
      Effect.flatMap((sink) => (sink._tag === "Some" ? sink.value.publish(event) : Effect.void))
    )
}
