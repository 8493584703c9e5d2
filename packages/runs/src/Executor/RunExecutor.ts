import { counted } from "@deepnote-rag/core"
import { EventLog, Journal, RunLeases, type RunNotFound, RunStore, StoreError } from "@deepnote-rag/store"
import { Cause, Context, Data, Deferred, Effect, Fiber, Layer, Option, Ref } from "effect"
import type { ExecuteOptions, ExecutionSummary, RunExecutorSettings } from "./ExecuteOptions.js"
import { executeRunItem } from "./ExecuteRunItem.js"
import { RunEvents } from "./RunEvents.js"
import { holdRunLease, type RunBusy } from "./RunLease.js"
import { planOf } from "./RunPlan.js"
import { defaultStoreOutageTolerance, makeStoreOutage, storeOutageToleranceConfig } from "./StoreOutage.js"

export interface RunExecutorService {
  /**
   * Executes (or resumes) a run under its lease: fails with `RunBusy` when another live process holds the run (unless
   * `waitForLease`), and stops early when the lease is lost.
   */
  readonly execute: (
    runId: string,
    options: ExecuteOptions
  ) => Effect.Effect<ExecutionSummary, RunBusy | RunNotFound | StoreError | EngineFailed>
}

/**
 * Executes (or resumes) a run: every pending item — and every item cut off while running — is answered in its own
 * fiber under a global in-flight limit, through the journal, so finished calls are never repeated. One process
 * executes a run at a time: it holds the run's lease and renews it. On interruption it stops admitting questions and
 * calls: calls in flight finish and are journaled (within the drain timeout), each question ends at its next call
 * boundary, and the run is marked interrupted.
 */
export class RunExecutor extends Context.Tag("@deepnote-rag/runs/RunExecutor")<RunExecutor, RunExecutorService>() {
  static readonly make = (settings: RunExecutorSettings = {}): Effect.Effect<
    RunExecutorService,
    never,
    RunStore | Journal | EventLog | RunEvents | RunLeases
  > =>
    Effect.gen(function*() {
      const store = yield* RunStore
      const context = yield* Effect.context<RunStore | Journal | EventLog | RunEvents | RunLeases>()
      const hub = yield* RunEvents
      const leases = yield* RunLeases

      const execute = Effect.fn("RunExecutor.execute")(function*(runId: string, options: ExecuteOptions) {
        yield* Effect.annotateCurrentSpan("deepnote.run.id", runId)
        yield* store.getRun(runId)
        const lease = yield* holdRunLease(runId, {
          owner: options.owner,
          ...(options.leaseTtl === undefined ? {} : { ttl: options.leaseTtl }),
          ...(options.waitForLease === undefined ? {} : { wait: options.waitForLease })
        }).pipe(Effect.provideService(RunLeases, leases))
        // read after taking the lease: what a previous owner finished meanwhile is not done again
        const run = yield* store.getRun(runId)
        const items = yield* store.pendingItems(runId, { includeFailed: options.retryFailed ?? false })
        if (items.length === 0) {
          const finished = run.status === "completed" ? run : yield* store.setRunStatus(runId, "completed")
          return {
            runId,
            status: "completed",
            done: 0,
            failed: 0,
            replayedCalls: 0,
            executedCalls: 0,
            nothingToDo: true,
            counts: finished.counts,
            leaseLost: false
          } as const
        }
        const plan = planOf(run)
        yield* store.setRunStatus(runId, "running")
        yield* hub.publish({ _tag: "RunStarted", runId, total: run.counts.total, pending: items.length })
        const tally = yield* Ref.make({ done: 0, failed: 0, replayedCalls: 0, executedCalls: 0 })
        const stopping = yield* Deferred.make<void>()
        const outage = yield* makeStoreOutage({
          tolerance: settings.storeOutageTolerance ?? defaultStoreOutageTolerance,
          probe: store.itemCounts(runId),
          onChange: options.onStoreOutage ?? (() => Effect.void)
        })
        yield* Deferred.await(lease.lost).pipe(
          Effect.zipRight(Deferred.succeed(stopping, undefined)),
          Effect.forkScoped
        )

        const work = Effect.scoped(Effect.gen(function*() {
          const engine = yield* Layer.build(options.engine).pipe(
            Effect.mapError((cause) => new EngineFailed({ cause }))
          )
          if (options.onEngine !== undefined) yield* options.onEngine(engine)
          yield* Effect.forEach(items, (item) =>
            Deferred.isDone(stopping).pipe(
              Effect.flatMap((stop) =>
                stop ? Effect.void : outage.rideOut(executeRunItem(plan, engine, item, Deferred.isDone(stopping))).pipe(
                  Effect.flatMap((o) =>
                    Ref.update(tally, (t) => ({
                      done: t.done + (o.ok ? 1 : 0),
                      failed: t.failed + (o.ok || o.stopped ? 0 : 1),
                      replayedCalls: t.replayedCalls + o.replayed,
                      executedCalls: t.executedCalls + o.executed
                    }))
                  )
                )
              )
            ), { concurrency: options.concurrency, discard: true })
        })).pipe(Effect.provide(context))

        /**
         * Records how the run ended: `completed` when no item is left pending or running, else `interrupted` (with
         * `stopped` as the message); the count of failed questions when there are any. A lost lease records nothing:
         * the run belongs to its new owner.
         */
        const finish = (stopped: string | undefined) =>
          outage.rideOut(Effect.gen(function*() {
            const after = yield* store.itemCounts(runId)
            if (yield* Deferred.isDone(lease.lost)) return { status: "interrupted" as const, counts: after }
            const status = after.pending + after.running === 0 ? "completed" as const : "interrupted" as const
            const failed = after.failed > 0 ? `${counted(after.failed, "question")} failed` : undefined
            yield* store.setRunStatus(
              runId,
              status,
              status === "interrupted" && stopped !== undefined ? stopped : failed
            )
            yield* hub.publish({ _tag: "RunFinished", runId, status })
            return { status, counts: after }
          }))

        const fiber = yield* Effect.forkDaemon(work)
        const exit = yield* Fiber.await(fiber).pipe(
          Effect.onInterrupt(() =>
            Effect.gen(function*() {
              yield* Deferred.succeed(stopping, undefined)
              // an interruption handler runs uninterruptibly: the wait is made interruptible, or the drain timeout could
              // never cut it short — a call that does not return (a stalled LLM server) held SIGINT/SIGTERM for as long
              // as the call's own timeouts and outage tolerance allowed (minutes), instead of the drain timeout
              const drained = yield* Effect.interruptible(Fiber.await(fiber)).pipe(
                Effect.timeout(options.drainTimeout ?? "10 seconds"),
                Effect.option
              )
              if (drained._tag === "None") yield* Fiber.interrupt(fiber)
              yield* finish("stopped by a signal; resume with `deepnote resume`").pipe(Effect.ignore)
            })
          )
        )
        const totals = yield* Ref.get(tally)
        if (exit._tag === "Failure") {
          const message = Cause.squash(exit.cause)
          // when the store itself failed, recording the failure may fail too: the run's failure is what is reported (the
          // run then stays `running` in the store, and `deepnote resume` continues it)
          yield* store.setRunStatus(runId, "failed", message instanceof Error ? message.message : String(message)).pipe(
            Effect.zipRight(hub.publish({ _tag: "RunFinished", runId, status: "failed" })),
            Effect.catchAll((e) => Effect.logWarning(`could not record that run ${runId} failed: ${e.message}`))
          )
          // the journal and the event log cannot fail through the roles' error types: their StoreError (a corrupted or
          // unwritable store) travels as a defect, and is an expected failure again here (one line, not a stack trace)
          const storeFailure = Option.filter(
            Cause.dieOption(exit.cause),
            (d): d is StoreError => d instanceof StoreError
          )
          if (Option.isSome(storeFailure)) return yield* Effect.fail(storeFailure.value)
          return yield* Effect.failCause(exit.cause)
        }
        const ended = yield* finish(undefined)
        return {
          runId,
          ...ended,
          ...totals,
          nothingToDo: false,
          leaseLost: yield* Deferred.isDone(lease.lost)
        }
      }, Effect.scoped)

      return RunExecutor.of({
        // `deepnote.run` is the root span of one execution (run or resume): the parent of its question spans. It starts
        // a new trace even when called inside a span (an HTTP request), and links to that span instead.
        execute: (runId: string, options: ExecuteOptions) =>
          Effect.flatMap(Effect.option(Effect.currentSpan), (caller) =>
            execute(runId, options).pipe(
              Effect.annotateLogs("deepnote.run.id", runId),
              Effect.withSpan("deepnote.run", {
                root: true,
                attributes: { "deepnote.run.id": runId, "deepnote.concurrency": options.concurrency },
                links: Option.match(caller, {
                  onNone: () => [],
                  onSome: (span) => [{ _tag: "SpanLink", span, attributes: {} }]
                })
              })
            ))
      })
    })

  static readonly layer = (settings: RunExecutorSettings = {}) => Layer.effect(RunExecutor, RunExecutor.make(settings))

  /** The executor with `DEEPNOTE_STORE_OUTAGE_TOLERANCE` (a duration, default 5 minutes) from `Config`. */
  static readonly layerConfig = Layer.unwrapEffect(
    Effect.map(storeOutageToleranceConfig, (storeOutageTolerance) => RunExecutor.layer({ storeOutageTolerance }))
  )
}

/** The engine (LLM pool, retriever) could not be built, e.g. bad settings or an unreachable index. */
export class EngineFailed extends Data.TaggedError("EngineFailed")<{ readonly cause: unknown }> {
  override get message() {
    const cause = this.cause
    return `the engine could not start: ${
      typeof cause === "object" && cause !== null && "message" in cause ? String(cause.message) : String(cause)
    }`
  }
}
