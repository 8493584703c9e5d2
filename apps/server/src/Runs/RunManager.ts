import {
  type BadGateway,
  Conflict,
  NotFound,
  RateLimited,
  type RunView,
  type Tenant,
  ValidationError
} from "@deepnote-rag/api"
import { promptSetHash } from "@deepnote-rag/engine"
import { Collections } from "@deepnote-rag/retrieval"
import { checkResumable, createRun, enqueueRun, WorkQueue } from "@deepnote-rag/runs"
import { type Run, RunOwners, RunStore, TenantQuotas, type TooManyRuns } from "@deepnote-rag/store"
import { FileSystem } from "@effect/platform"
import { Context, Effect, Layer, Option } from "effect"
import { TenantCollections } from "../Collections/TenantCollections.js"
import { ServerEngine } from "../Engine/ServerEngine.js"
import { type StoreFailure, storeFailure } from "../Http/StoreFailure.js"
import { ServerSettings } from "../ServerSettings.js"
import { defaultListLimit, pageOf, type RunsPage } from "./ListPage.js"
import { makeNewRunPlanner, type NewRunInput } from "./NewRunPlan.js"
import { isActiveRun, toRunView } from "./RunView.js"

/** The server's runs, each owned by one tenant: every method refuses runs of other tenants as not found. */
export interface RunManagerService {
  /** Creates a run from an uploaded dataset and queues its questions for the workers (202). */
  readonly create: (
    tenant: Tenant,
    input: NewRunInput
  ) => Effect.Effect<RunView, StoreFailure | NotFound | ValidationError | RateLimited | BadGateway>
  /** A page of the tenant's runs, newest first; `nextBefore` when older ones exist (404 for an unseen `before`). */
  readonly list: (
    tenant: Tenant,
    page?: RunsPage
  ) => Effect.Effect<{ readonly runs: ReadonlyArray<RunView>; readonly nextBefore?: string }, StoreFailure | NotFound>
  readonly get: (tenant: Tenant, runId: string) => Effect.Effect<RunView, StoreFailure | NotFound>
  /** Whether the tenant sees the run: it started it, or it is the `--no-auth` tenant (every run of the home). */
  readonly sees: (tenant: Tenant, runId: string) => Effect.Effect<boolean, StoreFailure>
  /** The stored run if the tenant sees it. */
  readonly owned: (tenant: Tenant, runId: string) => Effect.Effect<Run, StoreFailure | NotFound>
  /** Queues the run's unfinished questions again (a cancelled or failed run; `retryFailed` also its failed ones). */
  readonly resume: (
    tenant: Tenant,
    runId: string,
    options?: { readonly retryFailed?: boolean }
  ) => Effect.Effect<RunView, StoreFailure | Conflict | NotFound | RateLimited>
  /** Stops the run: its questions in flight stop at their next call (on every worker), the others wait for a resume. */
  readonly cancel: (tenant: Tenant, runId: string) => Effect.Effect<RunView, StoreFailure | NotFound>
  /** Runs queued or executing, over every tenant. */
  readonly activeCount: Effect.Effect<number>
}

const tooMany = (e: TooManyRuns) => RateLimited.of(e.message, 30, "too_many_runs")

/**
 * Runs started over HTTP: created in the shared store (owned by the tenant), their questions queued as jobs for the
 * queue workers — this server's own (`--workers`), other replicas', or `deepnote worker` processes on other machines.
 * Nothing here executes a run, and nothing is resumed at startup: a job whose worker died is taken over by another
 * worker when its lock expires. Every state (active runs, a tenant's limit, cancellation) lives in the store, so any
 * replica answers for any run.
 */
const make: Effect.Effect<
  RunManagerService,
  never,
  | ServerSettings
  | RunStore
  | RunOwners
  | TenantQuotas
  | WorkQueue
  | TenantCollections
  | Collections
  | FileSystem.FileSystem
  | ServerEngine
> = Effect.gen(function*() {
  const settings = yield* ServerSettings
  const store = yield* RunStore
  const fs = yield* FileSystem.FileSystem
  const owners = yield* RunOwners
  const quotas = yield* TenantQuotas
  const queue = yield* WorkQueue
  const collections = yield* TenantCollections
  const engine = yield* ServerEngine
  const index = yield* Collections
  const planNewRun = makeNewRunPlanner({ settings, collections, index, engine })
  const view = (run: Run, tenant: Tenant) => Effect.succeed(toRunView(run, tenant))

  const sees = Effect.fn("RunManager.sees")(function*(tenant: Tenant, runId: string) {
    yield* Effect.annotateCurrentSpan({ "deepnote.run.id": runId, "deepnote.tenant.id": tenant.id })
    // `--no-auth`: the home's runs are the local tenant's, those the CLI made (no owner) included
    if (tenant.wholeHome === true) return true
    const owner = yield* owners.get(runId).pipe(Effect.mapError(storeFailure))
    return Option.isSome(owner) && owner.value.tenantId === tenant.id
  })

  /** The run if the tenant owns it; 404 for unknown ids and other tenants' ids alike. */
  const owned = Effect.fn("RunManager.owned")(function*(tenant: Tenant, runId: string) {
    if (!(yield* sees(tenant, runId))) return yield* NotFound.of(`run ${runId} not found`)
    return yield* store.getRun(runId).pipe(
      Effect.catchTags({ RunNotFound: () => NotFound.of(`run ${runId} not found`), StoreError: storeFailure })
    )
  })

  const refusal = (run: Run) =>
    checkResumable(run, { promptSetHash: promptSetHash(run.manifest.config) }).pipe(
      Effect.as(Option.none<string>()),
      Effect.catchTag("ResumeRefused", (e) => Effect.succeed(Option.some(e.message)))
    )

  const enqueue = (runId: string, retryFailed: boolean) =>
    enqueueRun(runId, { retryFailed }).pipe(
      Effect.provideService(RunStore, store),
      Effect.provideService(WorkQueue, queue),
      Effect.catchTags({ RunNotFound: storeFailure, StoreError: storeFailure, WorkQueueError: storeFailure })
    )

  const create = Effect.fn("RunManager.create")(function*(tenant: Tenant, input: NewRunInput) {
    const plan = yield* planNewRun(tenant, input)
    const admitted = Effect.gen(function*() {
      const { run } = yield* createRun(plan).pipe(
        Effect.provideService(RunStore, store),
        Effect.provideService(FileSystem.FileSystem, fs),
        Effect.catchTags({
          DatasetError: (e) =>
            ValidationError.of(
              `dataset: ${e.line === undefined ? "" : `line ${e.line}: `}${
                e.field === undefined ? "" : `${e.field}: `
              }${e.reason}`,
              input.datasetField
            ),
          StoreError: storeFailure,
          SweepNotFound: storeFailure
        })
      )
      yield* owners.record(run.id, tenant.id).pipe(Effect.mapError(storeFailure))
      return (yield* enqueue(run.id, false)).run
    })
    // the tenant's limit is checked and the run created under the tenant's lock in the store: it holds across replicas
    const run = yield* quotas.admit(tenant.id, tenant.maxConcurrentRuns, admitted).pipe(
      Effect.catchTags({ TooManyRuns: tooMany, StoreError: storeFailure })
    )
    yield* Effect.annotateCurrentSpan({ "deepnote.run.id": run.id, "deepnote.tenant.id": tenant.id })
    return yield* view(run, tenant)
  })

  const list = Effect.fn("RunManager.list")(function*(tenant: Tenant, page: RunsPage = {}) {
    const limit = page.limit ?? defaultListLimit
    // an unknown cursor would read as "no older runs": refused instead, like every run id the tenant does not see
    if (page.before !== undefined) yield* owned(tenant, page.before)
    // `--no-auth`: the home's newest runs as listed; a keyed tenant: its own run ids, each read once (one more than
    // the page: whether older runs exist)
    const listed = tenant.wholeHome === true
      ? yield* store.listRuns({ limit: limit + 1, before: page.before, datasetHash: page.dataset }).pipe(
        Effect.mapError(storeFailure),
        Effect.map((runs) => {
          const { entries, nextBefore } = pageOf(runs, limit, (run) => run.id)
          return { runs: entries, nextBefore }
        })
      )
      : yield* owners.runsOf(tenant.id, { limit: limit + 1, before: page.before, datasetHash: page.dataset }).pipe(
        Effect.mapError(storeFailure),
        Effect.map((ids) => pageOf(ids, limit, (id) => id)),
        // the cursor is the page's last listed id (a keyed tenant's run whose row is gone still moves the page on)
        Effect.flatMap(({ entries, nextBefore }) =>
          Effect.forEach(entries, (id) => store.getRun(id).pipe(Effect.option)).pipe(
            Effect.map((found) => ({ runs: found.flatMap((r) => Option.isSome(r) ? [r.value] : []), nextBefore }))
          )
        )
      )
    const runs = yield* Effect.forEach(listed.runs, (run) => view(run, tenant))
    return listed.nextBefore === undefined ? { runs } : { runs, nextBefore: listed.nextBefore }
  })

  const get = Effect.fn("RunManager.get")(function*(tenant: Tenant, runId: string) {
    return yield* view(yield* owned(tenant, runId), tenant)
  })

  const resume = Effect.fn("RunManager.resume")(
    function*(tenant: Tenant, runId: string, options?: { readonly retryFailed?: boolean }) {
      const run = yield* owned(tenant, runId)
      const retryFailed = options?.retryFailed ?? false
      // already queued or running; or finished, with nothing left to queue: the run as it is, and nothing written
      if ((isActiveRun(run) || run.status === "completed") && !retryFailed) return yield* view(run, tenant)
      const refused = yield* refusal(run)
      if (Option.isSome(refused)) return yield* Conflict.of(refused.value)
      const queued = yield* quotas.admit(
        tenant.id,
        tenant.maxConcurrentRuns + (isActiveRun(run) ? 1 : 0),
        enqueue(runId, retryFailed)
      )
        .pipe(Effect.catchTags({ TooManyRuns: tooMany, StoreError: storeFailure }))
      return yield* view(queued.run, tenant)
    }
  )

  const cancel = Effect.fn("RunManager.cancel")(function*(tenant: Tenant, runId: string) {
    const run = yield* owned(tenant, runId)
    if (run.status === "completed" || run.status === "failed" || run.status === "interrupted") {
      return yield* view(run, tenant)
    }
    // workers re-read the run's status every few seconds and stop its questions at their next call
    const cancelled = yield* store.setRunStatus(
      runId,
      "interrupted",
      `cancelled through the API; POST /v1/runs/${runId}/resume continues it`
    ).pipe(Effect.catchTags({ RunNotFound: () => NotFound.of(`run ${runId} not found`), StoreError: storeFailure }))
    return yield* view(cancelled, tenant)
  })

  const activeCount = Effect.gen(function*() {
    const running = yield* store.listRuns({ status: "running", limit: 10_000 })
    const created = yield* store.listRuns({ status: "created", limit: 10_000 })
    return running.length + created.filter((r) => r.execution === "queue").length
  }).pipe(Effect.orElseSucceed(() => 0))

  return RunManager.of({ create, list, get, sees, owned, resume, cancel, activeCount })
})

/** The run manager of the HTTP app (every replica's is interchangeable: its state is the store's). */
export class RunManager extends Context.Tag("@deepnote-rag/server/RunManager")<RunManager, RunManagerService>() {
  static readonly make = make

  static readonly layer = Layer.effect(RunManager, RunManager.make)
}
