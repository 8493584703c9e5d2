import { answerQuestion, EventSink, PipelineResult, type RetrievalError, type RoleError } from "@deepnote-rag/core"
import { LlmCallPolicy } from "@deepnote-rag/llm"
import { EventLog, Journal, type PendingItem } from "@deepnote-rag/store"
import { Cause, Context, Effect, Either, Exit, Option } from "effect"
import { journaledRoles } from "../Journal/JournaledRoles.js"
import type { EngineServices } from "./EngineServices.js"
import { itemFrame, startItem } from "./ItemFrame.js"
import { RunEvents } from "./RunEvents.js"
import type { RunPlan } from "./RunPlan.js"
import { settleItem } from "./SettleItem.js"

export interface ItemOutcome {
  readonly itemId: string
  readonly ok: boolean
  /** The run stopped before the question finished; it stays `running` for resume. */
  readonly stopped: boolean
  readonly replayed: number
  readonly executed: number
}

/**
 * Runs one question of a run: journaled engine calls (replayed where the journal has them), events to the event log
 * and the in-process hub, and the outcome written in one transaction. A failed question is recorded with its error;
 * it never fails the run.
 */
export const executeItem = (
  plan: RunPlan,
  engine: Context.Context<EngineServices>,
  item: PendingItem,
  stopping: Effect.Effect<boolean>,
  options: {
    /** The item is already `running` for this execution (a queue worker claimed it); default false. */
    readonly claimed?: boolean
  } = {}
) =>
  Effect.gen(function*() {
    const journal = yield* Journal
    const eventLog = yield* EventLog
    const hub = yield* RunEvents
    const { runId } = plan
    yield* startItem(runId, item.itemId, options.claimed)
    // the question's trace id, stored with its result so the inspector can name the trace (`deepnote trace --item`)
    const traceId = yield* Effect.currentSpan.pipe(Effect.map((span) => span.traceId), Effect.option)
    // a call's journal entry is written with the event that follows it (one transaction instead of two), or before
    // the next call at the latest: a crash still loses only the call in flight
    const replay = yield* journal.replaying(runId, item.itemId, { persist: "next-write" })
    // A resumed question replays its journal deterministically, so it re-emits the events it logged before, in the
    // same order: each event is appended at its position in the question's events, and positions already logged are
    // skipped by the log (so are the events of a second execution racing this one). Only new events are published.
    let position = 0
    const sink = EventSink.of({
      publish: (event) =>
        Effect.flatMap(replay.takeUnsaved, (entries) =>
          eventLog.append(runId, item.itemId, [event], { position: position++, journal: entries })).pipe(
            Effect.orDie,
            Effect.flatMap((logged) =>
              logged.length === 0 ? Effect.void : hub.publish({ _tag: "ItemEvent", runId, itemId: item.itemId, event })
            )
          )
    })
    const roles = yield* Effect.provide(journaledRoles(replay, plan.configHash, stopping), engine)
    const exit: Exit.Exit<PipelineResult, RoleError | RetrievalError> = yield* answerQuestion(
      item.question,
      plan.config,
      // a claimed item's count already includes this execution; otherwise startItem has just added it
      { runId, attempt: options.claimed === true ? item.attempts : item.attempts + 1 }
    ).pipe(
      Effect.provide(Context.add(roles, EventSink, sink)),
      Effect.provide(engine),
      // a run's calls are batch work (long outage tolerance, batch priority), shared fairly between runs
      LlmCallPolicy.locally({ workClass: "batch", fairnessKey: runId }),
      Effect.exit
    )
    const stats = yield* replay.stats
    if (Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)) {
      // stopped between two calls: everything finished is journaled; the item stays `running` and is resumed later
      yield* journal.appendAll(yield* replay.takeUnsaved)
      return { itemId: item.itemId, ok: false, stopped: true, ...stats } satisfies ItemOutcome
    }
    const outcome = yield* Effect.either(exit)
    const settled = Either.map(outcome, (answered) =>
      Option.match(traceId, {
        onNone: () =>
          answered,
        // the result was validated when it was made: only the trace id is added (no second walk of the whole trace)
        onSome: (id) => new PipelineResult({ ...answered, traceId: id }, { disableValidation: true })
      }))
    const llmCalls = Either.isRight(settled) ? settled.right.counters.llm.total : 0
    return (yield* settleItem({
      runId,
      itemId: item.itemId,
      outcome: settled,
      stats,
      llmCalls,
      journal: yield* replay.takeUnsaved
    })) satisfies ItemOutcome
  }).pipe(itemFrame("RunExecutor.item", plan.runId, item.itemId))
