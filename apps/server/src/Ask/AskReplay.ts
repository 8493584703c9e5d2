import { NotFound, type Tenant, Unavailable } from "@deepnote-rag/api"
import { Context, Duration, Effect, Layer, Scope, Stream, SubscriptionRef } from "effect"
import { randomBytes } from "node:crypto"
import type { AskStreamItem } from "./Ask.js"

/** One item of an answer stream with its position (1, 2, …): the SSE id is `<askId>.<seq>`. */
export interface Numbered {
  readonly seq: number
  readonly item: AskStreamItem
}

interface Entry {
  readonly tenantId: string
  readonly items: Array<AskStreamItem>
  /** How many items there are; readers follow its changes. */
  readonly length: SubscriptionRef.SubscriptionRef<number>
}

const isEnd = (item: AskStreamItem) => item._tag === "Result" || item._tag === "Error"

/** How long a finished answer stream stays readable for a reconnecting client. */
export const replayRetention = Duration.minutes(5)

/** No spans: it moves every token of every streamed answer (the question's own spans say what ran). */
export interface AskReplayService {
  /** Runs the stream to its end (whether or not anyone reads it) and returns its id and its items from the start. */
  readonly start: (
    tenant: Tenant,
    items: Stream.Stream<AskStreamItem>
  ) => Effect.Effect<{ readonly id: string; readonly events: Stream.Stream<Numbered> }>
  /** The items after `afterSeq` of a stream the tenant started (live until its end); 404 once it is gone. */
  readonly resume: (tenant: Tenant, id: string, afterSeq: number) => Effect.Effect<Stream.Stream<Numbered>, NotFound>
}

/**
 * `/v1/ask` event streams that survive a dropped connection: each question's items are kept (in this process) while
 * it runs and for `replayRetention` after, so a client that reconnects with `Last-Event-ID: <askId>.<seq>` gets what
 * it missed, then the rest live — as a run's event stream does from the store. The question keeps running while its
 * client is away (bounded by the server's request timeout).
 */
export class AskReplay extends Context.Tag("@deepnote-rag/server/AskReplay")<AskReplay, AskReplayService>() {
  static readonly make: Effect.Effect<AskReplayService, never, Scope.Scope> = Effect.gen(function*() {
    const scope = yield* Effect.scope
    const entries = new Map<string, Entry>()

    const follow = (entry: Entry, afterSeq: number): Stream.Stream<Numbered> => {
      const last = entry.items[entry.items.length - 1]
      if (last !== undefined && isEnd(last) && afterSeq >= entry.items.length) return Stream.empty
      return entry.length.changes.pipe(
        Stream.mapAccum(afterSeq, (sent, length) => [
          Math.max(sent, length),
          entry.items.slice(sent, length).map((item, i) => ({ seq: sent + i + 1, item }))
        ]),
        Stream.flattenIterables,
        Stream.takeUntil((numbered) => isEnd(numbered.item))
      )
    }

    const start = (tenant: Tenant, items: Stream.Stream<AskStreamItem>) =>
      Effect.gen(function*() {
        const id = `ask_${randomBytes(12).toString("hex")}`
        const entry: Entry = { tenantId: tenant.id, items: [], length: yield* SubscriptionRef.make(0) }
        entries.set(id, entry)
        const append = (item: AskStreamItem) =>
          Effect.suspend(() => {
            entry.items.push(item)
            return SubscriptionRef.set(entry.length, entry.items.length)
          })
        yield* Stream.runForEach(items, append).pipe(
          // stopped before its end (the server shuts down): readers get an end instead of waiting for one
          Effect.onInterrupt(() =>
            append({ _tag: "Error", error: Unavailable.of("the server is shutting down", 1, "shutting_down") })
          ),
          Effect.zipRight(Effect.sleep(replayRetention)),
          Effect.ensuring(Effect.sync(() => entries.delete(id))),
          Effect.forkIn(scope)
        )
        return { id, events: follow(entry, 0) }
      })

    const resume = (tenant: Tenant, id: string, afterSeq: number) => {
      const entry = entries.get(id)
      return entry === undefined || entry.tenantId !== tenant.id
        ? Effect.fail(
          NotFound.of(
            `no answer stream ${id} (streams are kept ${Duration.format(replayRetention)} after their end)`
          )
        )
        : Effect.succeed(follow(entry, afterSeq))
    }

    return AskReplay.of({ start, resume })
  })

  static readonly layer = Layer.scoped(AskReplay, AskReplay.make)
}

/** `<askId>.<seq>` from a `Last-Event-ID` header; undefined when absent or not an answer stream's id. */
export const parseAskEventId = (header: string | undefined) => {
  const match = header === undefined ? null : /^(ask_[0-9a-f]+)\.(\d+)$/u.exec(header.trim())
  return match === null ? undefined : { id: match[1]!, afterSeq: Number(match[2]) }
}
