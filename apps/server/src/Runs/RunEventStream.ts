import type { Tenant } from "@deepnote-rag/api"
import { PipelineEvent } from "@deepnote-rag/core"
import { EventLog, RunStore } from "@deepnote-rag/store"
import { Deferred, Effect, Either, Option, Schema, Stream } from "effect"
import { Lifecycle } from "../Http/Lifecycle.js"
import type { SseItem } from "../Http/SseResponse.js"
import { RunManager } from "./RunManager.js"
import { isActiveRun, toRunView } from "./RunView.js"

const encodeEvent = Schema.encodeSync(PipelineEvent)
const pageSize = 500
const pollMs = 100
/** Idle polls between keep-alive comments (15 s). */
const keepAliveEvery = 150
/** While the store cannot be reached: how long between two reads (each counts as this many idle polls). */
const unreachablePollMs = 1_000

type Step = {
  readonly afterSeq: number
  readonly idle: number
  readonly done: boolean
  /** The last read found the store unreachable (said once per outage, as a comment). */
  readonly waiting: boolean
}

/**
 * A run's events as SSE, read from the store's event log after `afterSeq` (the client's `Last-Event-ID`): `id` is
 * the log's seq, so a reconnect continues exactly where the last delivered event was. The stream ends with an `end`
 * event (no id) once the server is no longer executing the run and every logged event was sent, or when the server
 * shuts down (the client reconnects with its Last-Event-ID). While the store cannot be reached (a Postgres restart or
 * failover) the stream stays open — a comment says so, keep-alives go on — and continues where it was once the store
 * answers; the run's workers ride the outage out the same way.
 */
export const runEventStream = (tenant: Tenant, runId: string, afterSeq: number) =>
  Effect.gen(function*() {
    const runs = yield* RunManager
    const eventLog = yield* EventLog
    const store = yield* RunStore
    const lifecycle = yield* Lifecycle
    yield* runs.owned(tenant, runId)

    /** One read of the store: the events after `afterSeq`, and the run when it is no longer executing. */
    const read = (after: number) =>
      Effect.gen(function*() {
        // the run before the log: events appended before the execution ended are then always in this page
        const run = yield* store.getRun(runId)
        const page = yield* eventLog.since(runId, { afterSeq: after, limit: pageSize })
        return { page, ended: isActiveRun(run) ? undefined : run }
      }).pipe(Effect.catchTag("RunNotFound", Effect.die))

    const next = (step: Step): Effect.Effect<Option.Option<readonly [ReadonlyArray<SseItem>, Step]>> =>
      Effect.gen(function*() {
        if (step.done) return Option.none()
        const found = yield* Effect.either(read(step.afterSeq))
        if (Either.isLeft(found)) {
          if (!found.left.unreachable) return yield* Effect.die(found.left)
          yield* Effect.sleep(unreachablePollMs)
          const idle = step.idle + unreachablePollMs / pollMs
          const said: ReadonlyArray<SseItem> = step.waiting
            ? []
            : [{ _tag: "Comment", text: "the store cannot be reached; waiting for it" }]
          const ping: ReadonlyArray<SseItem> = idle % keepAliveEvery === 0
            ? [{ _tag: "Comment", text: "keep-alive" }]
            : []
          return Option.some([[...said, ...ping], { ...step, idle, waiting: true }] as const)
        }
        const { ended, page } = found.right
        if (page.length > 0) {
          const items = page.map((e): SseItem => ({
            _tag: "Event",
            event: e.event._tag,
            id: String(e.seq),
            data: JSON.stringify({ seq: e.seq, itemId: e.itemId, event: encodeEvent(e.event) })
          }))
          return Option.some(
            [items, { afterSeq: page[page.length - 1]!.seq, idle: 0, done: false, waiting: false }] as const
          )
        }
        if (ended !== undefined) {
          const end: SseItem = { _tag: "Event", event: "end", data: JSON.stringify(toRunView(ended, tenant)) }
          return Option.some([[end], { ...step, done: true }] as const)
        }
        yield* Effect.sleep(pollMs)
        const idle = step.idle + 1
        const ping: ReadonlyArray<SseItem> = idle % keepAliveEvery === 0
          ? [{ _tag: "Comment", text: "keep-alive" }]
          : []
        return Option.some([ping, { ...step, idle, waiting: false }] as const)
      })

    const initial: Step = { afterSeq, idle: 0, done: false, waiting: false }
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
