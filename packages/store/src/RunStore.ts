import type { Question } from "@deepnote-rag/core"
import { SqlClient } from "@effect/sql"
import { Chunk, Context, Effect, Layer, Option, Stream } from "effect"
import type { ItemNotFound, JournalMismatch, RunNotFound, StoreError, SweepNotFound } from "./Domain/Errors.js"
import type { ItemClaim, ItemError, ItemRecord, ItemResult, PendingItem } from "./Domain/Item.js"
import type { ItemCounts, Run, RunStatus } from "./Domain/Run.js"
import { type ItemOutcome, makeItemOps, type ResultsPageOptions } from "./internal/itemOps.js"
import { makeQueries } from "./internal/query.js"
import { type CreateRunInput, type ListRunsOptions, makeRunOps } from "./internal/runOps.js"
import { SqliteDirect } from "./internal/sqliteDirect.js"

export type { CreateRunInput, ItemOutcome, ListRunsOptions, ResultsPageOptions }

/** Runs and their items. Every method that finishes a step writes in one transaction. */
export interface RunStoreService {
  /** Creates a run in status `created`. Fails with `SweepNotFound` when the manifest names an unknown sweep. */
  readonly createRun: (input: CreateRunInput) => Effect.Effect<Run, SweepNotFound | StoreError>
  readonly getRun: (runId: string) => Effect.Effect<Run, RunNotFound | StoreError>
  /** Newest first. */
  readonly listRuns: (options?: ListRunsOptions) => Effect.Effect<ReadonlyArray<Run>, StoreError>
  /** Sets the status; `running` stamps `startedAt` once, final statuses stamp `finishedAt`. Returns the run. */
  readonly setRunStatus: (
    runId: string,
    status: RunStatus,
    message?: string
  ) => Effect.Effect<Run, RunNotFound | StoreError>
  /**
   * A queued run's first question starts it: `created` → `running` in one statement; false (and nothing changed) when
   * the run is in another state, so a cancel (`interrupted`) made meanwhile is never overwritten.
   */
  readonly startQueuedRun: (runId: string) => Effect.Effect<boolean, StoreError>
  /**
   * Adds questions as `pending` items in one transaction, numbered after the existing ones. Items whose id is already
   * in the run are skipped, so adding the same dataset twice is harmless.
   */
  readonly addItems: (
    runId: string,
    questions: ReadonlyArray<Question>
  ) => Effect.Effect<{ readonly added: number; readonly skipped: number }, RunNotFound | StoreError>
  /** Items to (re)run in order: `pending` and `running` (cut off last time), and `failed` with `includeFailed`. */
  readonly pendingItems: (
    runId: string,
    options?: { readonly includeFailed?: boolean }
  ) => Effect.Effect<ReadonlyArray<PendingItem>, RunNotFound | StoreError>
  /** Starts a new generation of a queue run's jobs (its resume) and makes it a queue run; returns the generation. */
  readonly nextQueueGeneration: (runId: string) => Effect.Effect<number, RunNotFound | StoreError>
  /**
   * Claims a question for queue job `jobId` (atomically): `Claimed` when it is pending, failed by an earlier job, or
   * running under this same job (taken over after its worker died), counting the attempt; `Taken` otherwise (done, or
   * running under another job).
   */
  readonly claimItem: (
    runId: string,
    itemId: string,
    jobId: string
  ) => Effect.Effect<ItemClaim, RunNotFound | ItemNotFound | StoreError>
  /** Puts a question that job `jobId` holds back to `pending` (its run was cancelled while it ran). */
  readonly releaseItem: (runId: string, itemId: string, jobId: string) => Effect.Effect<void, StoreError>
  /** Marks an item `running` and counts the attempt. */
  readonly markItemRunning: (
    runId: string,
    itemId: string
  ) => Effect.Effect<void, RunNotFound | ItemNotFound | StoreError>
  /**
   * Stores the result and the remaining journal entries and marks the item `done`, all in one transaction. An item
   * that is already done stays as it is (a question is done once).
   */
  readonly completeItem: (
    outcome: ItemOutcome & { readonly result: ItemResult }
  ) => Effect.Effect<void, RunNotFound | ItemNotFound | JournalMismatch | StoreError>
  /** Stores the error and the journal entries of the calls that succeeded (replayed on retry); one transaction. */
  readonly failItem: (
    outcome: ItemOutcome & { readonly error: ItemError }
  ) => Effect.Effect<void, RunNotFound | ItemNotFound | JournalMismatch | StoreError>
  readonly itemCounts: (runId: string) => Effect.Effect<ItemCounts, RunNotFound | StoreError>
  readonly getItem: (
    runId: string,
    itemId: string
  ) => Effect.Effect<ItemRecord, RunNotFound | ItemNotFound | StoreError>
  /** One page of items by `seq`, finished ones (`done`, `failed`) unless `statuses` says otherwise. */
  readonly resultsPage: (
    runId: string,
    options?: ResultsPageOptions
  ) => Effect.Effect<ReadonlyArray<ItemRecord>, RunNotFound | StoreError>
  /** Every finished item in `seq` order, read page by page. */
  readonly results: (
    runId: string,
    options?: Omit<ResultsPageOptions, "afterSeq">
  ) => Stream.Stream<ItemRecord, RunNotFound | StoreError>
}

/** The run store (`runs` and `items` tables). Needs the store's `SqlClient` (see `Store.layer`). */
export class RunStore extends Context.Tag("@deepnote-rag/store/RunStore")<RunStore, RunStoreService>() {
  static readonly make: Effect.Effect<RunStoreService, never, SqlClient.SqlClient> = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const runs = makeRunOps(sql)
    const { transaction } = makeQueries(sql)
    // SQLite: an item's writes take the synchronous path (`internal/directItems.ts`); Postgres has none
    const items = makeItemOps(sql, runs.runExists, yield* Effect.serviceOption(SqliteDirect))
    const runAttrs = (runId: string) => Effect.annotateCurrentSpan({ "deepnote.run.id": runId })
    const itemAttrs = (runId: string, itemId: string) =>
      Effect.annotateCurrentSpan({ "deepnote.run.id": runId, "deepnote.item.id": itemId })
    const results: RunStoreService["results"] = (runId, options = {}) =>
      Stream.paginateChunkEffect(
        -1,
        (afterSeq: number) =>
          Effect.map(items.resultsPage(runId, { ...options, afterSeq }), (page) => {
            const limit = options.limit ?? 500
            const last = page[page.length - 1]
            return [
              Chunk.fromIterable(page),
              last === undefined || page.length < limit ? Option.none() : Option.some(last.seq)
            ] as const
          })
      )
    return RunStore.of({
      createRun: Effect.fn("RunStore.createRun")(function*(input: CreateRunInput) {
        const questions = input.questions
        if (questions === undefined) {
          const run = yield* runs.createRun(input)
          yield* runAttrs(run.id)
          return run
        }
        return yield* Effect.gen(function*() {
          const created = yield* runs.createRun(input)
          yield* runAttrs(created.id)
          // the run was inserted just now, in this transaction
          yield* items.addItems(created.id, questions).pipe(Effect.catchTag("RunNotFound", Effect.die))
          return yield* runs.getRun(created.id).pipe(Effect.catchTag("RunNotFound", Effect.die))
        }).pipe(transaction("creating a run"))
      }),
      getRun: Effect.fn("RunStore.getRun")(function*(runId: string) {
        yield* runAttrs(runId)
        return yield* runs.getRun(runId)
      }),
      listRuns: Effect.fn("RunStore.listRuns")(function*(options?: ListRunsOptions) {
        return yield* runs.listRuns(options)
      }),
      setRunStatus: Effect.fn("RunStore.setRunStatus")(function*(runId: string, status: RunStatus, message?: string) {
        yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId, "deepnote.run.status": status })
        return yield* runs.setRunStatus(runId, status, message)
      }),
      startQueuedRun: Effect.fn("RunStore.startQueuedRun")(function*(runId: string) {
        yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId })
        return yield* runs.startQueuedRun(runId)
      }),
      addItems: Effect.fn("RunStore.addItems")(function*(runId: string, questions: ReadonlyArray<Question>) {
        yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId, "deepnote.items": questions.length })
        return yield* items.addItems(runId, questions)
      }),
      pendingItems: Effect.fn("RunStore.pendingItems")(
        function*(runId: string, options?: { readonly includeFailed?: boolean }) {
          yield* runAttrs(runId)
          return yield* items.pendingItems(runId, options)
        }
      ),
      nextQueueGeneration: Effect.fn("RunStore.nextQueueGeneration")(function*(runId: string) {
        yield* runAttrs(runId)
        return yield* runs.nextQueueGeneration(runId)
      }),
      claimItem: Effect.fn("RunStore.claimItem")(function*(runId: string, itemId: string, jobId: string) {
        yield* itemAttrs(runId, itemId)
        return yield* items.claimItem(runId, itemId, jobId)
      }),
      releaseItem: Effect.fn("RunStore.releaseItem")(function*(runId: string, itemId: string, jobId: string) {
        yield* itemAttrs(runId, itemId)
        return yield* items.releaseItem(runId, itemId, jobId)
      }),
      markItemRunning: Effect.fn("RunStore.markItemRunning")(function*(runId: string, itemId: string) {
        yield* itemAttrs(runId, itemId)
        return yield* items.markItemRunning(runId, itemId)
      }),
      completeItem: Effect.fn("RunStore.completeItem")(
        function*(outcome: ItemOutcome & { readonly result: ItemResult }) {
          yield* itemAttrs(outcome.runId, outcome.itemId)
          return yield* items.completeItem(outcome)
        }
      ),
      failItem: Effect.fn("RunStore.failItem")(function*(outcome: ItemOutcome & { readonly error: ItemError }) {
        yield* itemAttrs(outcome.runId, outcome.itemId)
        return yield* items.failItem(outcome)
      }),
      itemCounts: Effect.fn("RunStore.itemCounts")(function*(runId: string) {
        yield* runAttrs(runId)
        return yield* items.itemCounts(runId)
      }),
      getItem: Effect.fn("RunStore.getItem")(function*(runId: string, itemId: string) {
        yield* itemAttrs(runId, itemId)
        return yield* items.getItem(runId, itemId)
      }),
      resultsPage: Effect.fn("RunStore.resultsPage")(function*(runId: string, options?: ResultsPageOptions) {
        yield* runAttrs(runId)
        return yield* items.resultsPage(runId, options)
      }),
      results
    })
  })

  static readonly layer: Layer.Layer<RunStore, never, SqlClient.SqlClient> = Layer.effect(RunStore, RunStore.make)
}
