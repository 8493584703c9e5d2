import type { Tenant } from "@deepnote-rag/api"
import { PipelineEvent } from "@deepnote-rag/core"
import { EventLog, RunStore } from "@deepnote-rag/store"
import { Deferred, Effect, Option, Schema, Stream } from "effect"
import { Lifecycle } from "../Http/Lifecycle.js"
import type { SseItem } from "../Http/SseResponse.js"
import { RunManager } from "./RunManager.js"
import { toRunView } from "./RunView.js"

const encodeEvent = Schema.encodeSync(PipelineEvent)
const pageSize = 500
const pollMs = 100
/** Idle polls between keep-alive comments (15 s). */
const keepAliveEvery = 150

type Step = { readonly afterSeq: number; readonly idle: number; readonly done: boolean }

/**
 * A run's events as SSE, read from the store's event log after `afterSeq` (the client's `Last-Event-ID`): `id` is
 * the log's seq, so a reconnect continues exactly where the last delivered event was. The stream ends with an `end`
 * event (no id) once the server is no longer executing the run and every logged event was sent, or when the server
 * shuts down (the client reconnects with its Last-Event-ID).
 */
export const runEventStream = (tenant: Tenant, runId: string, afterSeq: number) =>
  Effect.gen(function*() {
    const runs = yield* RunManager
    const eventLog = yield* EventLog
    const store = yield* RunStore
    const lifecycle = yield* Lifecycle
    yield* runs.owned(tenant, runId)

    const next = (step: Step): Effect.Effect<Option.Option<readonly [ReadonlyArray<SseItem>, Step]>> =>
      Effect.gen(function*() {
        if (step.done) return Option.none()
        // read "active" before the log: events appended before the execution ended are then always in this page
        const active = yield* runs.isActive(runId)
        const page = yield* Effect.orDie(eventLog.since(runId, { afterSeq: step.afterSeq, limit: pageSize }))
        if (page.length > 0) {
          const items = page.map((e): SseItem => ({
            _tag: "Event",
            event: e.event._tag,
            id: String(e.seq),
            data: JSON.stringify({ seq: e.seq, itemId: e.itemId, event: encodeEvent(e.event) })
          }))
          return Option.some([items, { afterSeq: page[page.length - 1]!.seq, idle: 0, done: false }] as const)
        }
        if (!active) {
          const run = yield* Effect.orDie(store.getRun(runId))
          const end: SseItem = { _tag: "Event", event: "end", data: JSON.stringify(toRunView(run, tenant)) }
          return Option.some([[end], { ...step, done: true }] as const)
        }
        yield* Effect.sleep(pollMs)
        const idle = step.idle + 1
        const ping: ReadonlyArray<SseItem> = idle % keepAliveEvery === 0
          ? [{ _tag: "Comment", text: "keep-alive" }]
          : []
        return Option.some([ping, { ...step, idle }] as const)
      })

    const initial: Step = { afterSeq, idle: 0, done: false }
    return Stream.paginateEffect(initial, (step: Step) =>
      Effect.map(next(step), (o) =>
        Option.match(o, {
          onNone: () => [[] as ReadonlyArray<SseItem>, Option.none<Step>()] as const,
          onSome: ([items, s]) => [items, Option.some(s)] as const
        }))).pipe(
        Stream.flatMap((items: ReadonlyArray<SseItem>) => Stream.fromIterable(items)),
        Stream.interruptWhen(Deferred.await(lifecycle.stopping))
      )
  })
