import {
  type ConfigPatch,
  Conflict,
  InternalError,
  NotFound,
  RateLimited,
  type RunView,
  type Tenant,
  ValidationError
} from "@deepnote/api"
import { promptSetHash } from "@deepnote/engine"
import type { DatasetFormat } from "@deepnote/eval"
import { checkResumable, collectionOf, createRun, processOwner, resumeConcurrency, RunExecutor } from "@deepnote/runs"
import { type Run, RunOwners, RunStore } from "@deepnote/store"
import { FileSystem } from "@effect/platform"
import { Context, Effect, FiberMap, Layer, Option, Ref, type Scope } from "effect"
import { TenantCollections } from "../Collections/TenantCollections.js"
import { yieldingToIo } from "../Engine/EventLoopScheduler.js"
import { resolveRequestConfig } from "../Engine/RequestConfig.js"
import { ServerEngine } from "../Engine/ServerEngine.js"
import { ServerSettings } from "../ServerSettings.js"
import { toRunView } from "./RunView.js"

export interface NewRunInput {
  readonly datasetFile: string
  readonly datasetField: string
  readonly collection?: string | undefined
  readonly format?: DatasetFormat | undefined
  readonly limit?: number | undefined
  readonly skipBadLines?: boolean | undefined
  readonly label?: string | undefined
  readonly concurrency?: number | undefined
  readonly config?: ConfigPatch | undefined
}

/** The server's runs, each owned by one tenant: every method refuses runs of other tenants as not found. */
export interface RunManagerService {
  /** Creates a run from an uploaded dataset and starts it (202). */
  readonly create: (
    tenant: Tenant,
    input: NewRunInput
  ) => Effect.Effect<RunView, InternalError | NotFound | ValidationError | RateLimited>
  readonly list: (tenant: Tenant) => Effect.Effect<ReadonlyArray<RunView>, InternalError>
  readonly get: (tenant: Tenant, runId: string) => Effect.Effect<RunView, InternalError | NotFound>
  /** The stored run if the tenant owns it. */
  readonly owned: (tenant: Tenant, runId: string) => Effect.Effect<Run, InternalError | NotFound>
  readonly resume: (
    tenant: Tenant,
    runId: string
  ) => Effect.Effect<RunView, InternalError | Conflict | NotFound | RateLimited>
  /** Stops the run's execution (it drains) and keeps it from being resumed at startup. */
  readonly cancel: (tenant: Tenant, runId: string) => Effect.Effect<RunView, InternalError | NotFound>
  /** Whether this server is executing the run now. */
  readonly isActive: (runId: string) => Effect.Effect<boolean>
  readonly activeCount: Effect.Effect<number>
  /** Resumes every unfinished run the server started and did not cancel (failures are logged). */
  readonly resumeUnfinished: Effect.Effect<void>
}

const storeFailure = (e: { readonly message: string }) => InternalError.of(e.message, "store_error")

/**
 * Runs started over HTTP: created in the shared store (owned by the tenant), executed in the background by the
 * `RunExecutor` (one fiber per run, questions in flight per run bounded), resumable, cancellable.
 *
 * Restart policy: when the server starts, every run it started that is `created`, `running` or `interrupted` and was
 * not cancelled is resumed (its journal replays finished calls). A cancelled run stays `interrupted` until a resume
 * request. Shutting down interrupts the executions, which drain in-flight questions and mark the runs `interrupted`.
 */
const make: Effect.Effect<
  RunManagerService,
  never,
  | ServerSettings
  | RunStore
  | RunOwners
  | RunExecutor
  | ServerEngine
  | TenantCollections
  | FileSystem.FileSystem
  | Scope.Scope
> = Effect.gen(function*() {
  const settings = yield* ServerSettings
  const store = yield* RunStore
  const fs = yield* FileSystem.FileSystem
  const owners = yield* RunOwners
  const executor = yield* RunExecutor
  const engine = yield* ServerEngine
  const collections = yield* TenantCollections
  const fibers = yield* FiberMap.make<string>()
  const tenantsOf = yield* Ref.make(new Map<string, string>())
  const scope = yield* Effect.scope
  const owner = processOwner("server")
  const { limits } = settings

  const isActive = (runId: string) => FiberMap.has(fibers, runId)
  const activeOf = (tenantId: string) =>
    Effect.gen(function*() {
      let n = 0
      for (const [runId, owner] of yield* Ref.get(tenantsOf)) if (owner === tenantId && (yield* isActive(runId))) n++
      return n
    })
  const view = (run: Run, tenant: Tenant) => Effect.map(isActive(run.id), (active) => toRunView(run, tenant, active))

  /** Starts a run's execution at its own concurrency (capped by the server's limit). */
  const launch = (run: Run, tenantId: string) =>
    Effect.gen(function*() {
      const concurrency = Math.min(resumeConcurrency(run, undefined, limits.runConcurrency), limits.maxRunConcurrency)
      yield* Ref.update(tenantsOf, (m) => m.set(run.id, tenantId))
      const execution = executor.execute(run.id, {
        engine: engine.layerFor(run.manifest.config, collectionOf(run)),
        concurrency,
        drainTimeout: limits.drainTimeout,
        owner
      }).pipe(
        Effect.tap((s) =>
          Effect.logInfo(
            `run ${run.id} ${s.status}: ${s.done} done, ${s.failed} failed (${s.executedCalls} calls, ${s.replayedCalls} replayed)`
          )
        ),
        Effect.catchAllCause((cause) => Effect.logError(`run ${run.id} stopped`, cause)),
        Effect.ensuring(Ref.update(tenantsOf, (m) => {
          m.delete(run.id)
          return m
        })),
        Effect.annotateLogs({ "deepnote.run.id": run.id, "deepnote.tenant.id": tenantId }),
        // runs yield to the event loop (not just to other fibers) so a CPU-bound engine never starves HTTP requests
        yieldingToIo
      )
      yield* FiberMap.run(fibers, run.id, execution, { onlyIfMissing: true })
    })

  // Admission per tenant is serialised: two requests could otherwise both pass `checkCapacity` while the first is still
  // creating its run, and exceed the tenant's limit. (Other tenants are not held up.)
  const admissions = new Map<string, Effect.Semaphore>()
  const admitting = (tenantId: string) => {
    let gate = admissions.get(tenantId)
    if (gate === undefined) admissions.set(tenantId, gate = Effect.unsafeMakeSemaphore(1))
    return gate.withPermits(1)
  }

  const checkCapacity = (tenant: Tenant) =>
    Effect.gen(function*() {
      const active = yield* activeOf(tenant.id)
      if (active >= tenant.maxConcurrentRuns) {
        return yield* RateLimited.of(
          `tenant ${tenant.id} already has ${active} run(s) executing (limit ${tenant.maxConcurrentRuns})`,
          30,
          "too_many_runs"
        )
      }
    })

  /** The run if the tenant owns it; 404 for unknown ids and other tenants' ids alike. */
  const owned = Effect.fn("RunManager.owned")(function*(tenant: Tenant, runId: string) {
    const owner = yield* owners.get(runId).pipe(Effect.mapError(storeFailure))
    if (Option.isNone(owner) || owner.value.tenantId !== tenant.id) return yield* NotFound.of(`run ${runId} not found`)
    return yield* store.getRun(runId).pipe(
      Effect.catchTags({ RunNotFound: () => NotFound.of(`run ${runId} not found`), StoreError: storeFailure })
    )
  })

  const refusal = (run: Run) =>
    Effect.gen(function*() {
      if (run.manifest.config.engine !== engine.engine) {
        return Option.some(
          `run ${run.id} uses the ${run.manifest.config.engine} engine; this server runs ${engine.engine}`
        )
      }
      return yield* checkResumable(run, { promptSetHash: promptSetHash(run.manifest.config) }).pipe(
        Effect.as(Option.none<string>()),
        Effect.catchTag("ResumeRefused", (e) => Effect.succeed(Option.some(e.message)))
      )
    })

  const create = Effect.fn("RunManager.create")(function*(tenant: Tenant, input: NewRunInput) {
    const config = yield* resolveRequestConfig(settings.defaults, input.config, "config")
    const name = input.collection ?? "default"
    const stored = config.profile === "no-retrieval"
      ? `${tenant.namespace}${name}`
      : yield* collections.require(tenant, name)
    const run = yield* admitting(tenant.id)(Effect.gen(function*() {
      yield* checkCapacity(tenant)
      const { run } = yield* createRun({
        dataset: input.datasetFile,
        format: input.format,
        limit: input.limit,
        onBadLine: input.skipBadLines === true ? "skip" : "fail",
        config,
        collection: stored,
        promptSetHash: promptSetHash(config),
        label: input.label,
        concurrency: Math.min(input.concurrency ?? limits.runConcurrency, limits.maxRunConcurrency)
      }).pipe(
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
          RunNotFound: storeFailure,
          SweepNotFound: storeFailure
        })
      )
      yield* owners.record(run.id, tenant.id).pipe(Effect.mapError(storeFailure))
      yield* launch(run, tenant.id)
      return run
    }))
    yield* Effect.annotateCurrentSpan({ "deepnote.run.id": run.id, "deepnote.tenant.id": tenant.id })
    return yield* view(run, tenant)
  })

  const list = Effect.fn("RunManager.list")(function*(tenant: Tenant) {
    const ids = yield* owners.runsOf(tenant.id).pipe(Effect.mapError(storeFailure))
    const runs = yield* Effect.forEach(ids, (id) => store.getRun(id).pipe(Effect.option))
    return yield* Effect.forEach(runs.flatMap((r) => Option.isSome(r) ? [r.value] : []), (run) => view(run, tenant))
  })

  const get = Effect.fn("RunManager.get")(function*(tenant: Tenant, runId: string) {
    return yield* view(yield* owned(tenant, runId), tenant)
  })

  const resume = Effect.fn("RunManager.resume")(function*(tenant: Tenant, runId: string) {
    const run = yield* owned(tenant, runId)
    if (yield* isActive(runId)) return yield* Conflict.of(`run ${runId} is already running`)
    const refused = yield* refusal(run)
    if (Option.isSome(refused)) return yield* Conflict.of(refused.value)
    yield* admitting(tenant.id)(Effect.gen(function*() {
      yield* checkCapacity(tenant)
      yield* owners.setAutoResume(runId, true).pipe(Effect.mapError(storeFailure))
      yield* launch(run, tenant.id)
    }))
    return yield* view(run, tenant)
  })

  const cancel = Effect.fn("RunManager.cancel")(function*(tenant: Tenant, runId: string) {
    const run = yield* owned(tenant, runId)
    yield* owners.setAutoResume(runId, false).pipe(Effect.mapError(storeFailure))
    // the executor drains in-flight questions (up to the drain timeout); a run stopped before it started stays
    // `created` without this, so the status is set here too
    yield* FiberMap.remove(fibers, runId).pipe(
      Effect.zipRight(store.getRun(runId)),
      Effect.flatMap((after) =>
        after.status === "completed" || after.status === "failed"
          ? Effect.void
          : store.setRunStatus(
            runId,
            "interrupted",
            `cancelled through the API; POST /v1/runs/${runId}/resume continues it`
          )
      ),
      Effect.catchAllCause((cause) => Effect.logError(`cancelling run ${runId}`, cause)),
      Effect.forkIn(scope)
    )
    return yield* view(run, tenant)
  })

  const resumeUnfinished = Effect.gen(function*() {
    const unfinished = yield* owners.unfinished
    for (const owner of unfinished) {
      const run = yield* store.getRun(owner.runId)
      const refused = yield* refusal(run)
      if (Option.isSome(refused)) {
        yield* Effect.logWarning(`not resuming run ${run.id}: ${refused.value}`)
        continue
      }
      yield* Effect.logInfo(
        `resuming run ${run.id} (${run.status}, ${run.counts.done + run.counts.failed}/${run.counts.total} finished)`
      )
      yield* launch(run, owner.tenantId)
    }
  }).pipe(
    Effect.catchAllCause((cause) => Effect.logError("resuming unfinished runs failed", cause)),
    Effect.withSpan("RunManager.resumeUnfinished")
  )

  const activeCount = FiberMap.size(fibers)

  return RunManager.of({ create, list, get, owned, resume, cancel, isActive, activeCount, resumeUnfinished })
})

/** The run manager; on startup it resumes the unfinished runs the server started (`resumeOnStart`). */
export class RunManager extends Context.Tag("@deepnote/server/RunManager")<RunManager, RunManagerService>() {
  static readonly make = make

  static readonly layer = Layer.scoped(
    RunManager,
    Effect.gen(function*() {
      const manager = yield* RunManager.make
      if ((yield* ServerSettings).resumeOnStart) yield* Effect.forkScoped(manager.resumeUnfinished)
      return manager
    })
  )
}
