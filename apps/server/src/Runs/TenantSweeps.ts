import { NotFound, SweepView, type Tenant } from "@deepnote-rag/api"
import { type SweepState, sweepState } from "@deepnote-rag/runs"
import { RunStore, Sweeps } from "@deepnote-rag/store"
import { Context, Effect, Layer } from "effect"
import { type StoreFailure, storeFailure } from "../Http/StoreFailure.js"
import { RunManager } from "./RunManager.js"
import { toRunView } from "./RunView.js"

/** The sweeps a tenant sees: the `--no-auth` tenant every sweep of the home, others those made of their runs only. */
export interface TenantSweepsService {
  readonly list: (tenant: Tenant) => Effect.Effect<ReadonlyArray<SweepView>, StoreFailure>
  /** 404 for unknown ids and for sweeps the tenant does not see alike. */
  readonly get: (tenant: Tenant, sweepId: string) => Effect.Effect<SweepView, StoreFailure | NotFound>
}

const toSweepView = (state: SweepState, tenant: Tenant): SweepView =>
  new SweepView({
    id: state.sweep.id,
    ...(state.sweep.label === undefined ? {} : { label: state.sweep.label }),
    grid: state.knobs,
    createdAt: state.sweep.createdAt,
    cells: state.cells.map((c) => ({
      cell: c.cell,
      ...(c.run === undefined ? {} : { runId: c.run.id, run: toRunView(c.run, tenant) })
    }))
  })

export class TenantSweeps
  extends Context.Tag("@deepnote-rag/server/TenantSweeps")<TenantSweeps, TenantSweepsService>()
{
  static readonly make: Effect.Effect<TenantSweepsService, never, RunStore | Sweeps | RunManager> = Effect.gen(
    function*() {
      const services = Context.make(RunStore, yield* RunStore).pipe(Context.add(Sweeps, yield* Sweeps))
      const runs = yield* RunManager
      const sweeps = yield* Sweeps

      /** The sweep's state if the tenant sees it: every run of it is the tenant's (and it has one), or the whole home. */
      const visible = (tenant: Tenant, sweepId: string) =>
        Effect.gen(function*() {
          const state = yield* sweepState(sweepId).pipe(Effect.provide(services))
          if (tenant.wholeHome === true) return state
          const created = state.cells.flatMap((c) => (c.run === undefined ? [] : [c.run.id]))
          const seen = yield* Effect.forEach(created, (id) => runs.sees(tenant, id))
          return created.length > 0 && seen.every((s) => s) ? state : undefined
        })

      const get = Effect.fn("TenantSweeps.get")(function*(tenant: Tenant, sweepId: string) {
        yield* Effect.annotateCurrentSpan({ "deepnote.sweep.id": sweepId, "deepnote.tenant.id": tenant.id })
        const state = yield* visible(tenant, sweepId).pipe(
          Effect.catchTags({ SweepNotFound: () => Effect.succeed(undefined), StoreError: storeFailure })
        )
        if (state === undefined) return yield* NotFound.of(`sweep ${sweepId} not found`)
        return toSweepView(state, tenant)
      })

      const list = Effect.fn("TenantSweeps.list")(function*(tenant: Tenant) {
        yield* Effect.annotateCurrentSpan({ "deepnote.tenant.id": tenant.id })
        const all = yield* sweeps.list.pipe(Effect.mapError(storeFailure))
        const states = yield* Effect.forEach(all, (s) =>
          visible(tenant, s.id).pipe(
            Effect.catchTags({ SweepNotFound: () => Effect.succeed(undefined), StoreError: storeFailure })
          ))
        return states.flatMap((state) => (state === undefined ? [] : [toSweepView(state, tenant)]))
      })

      return TenantSweeps.of({ list, get })
    }
  )

  static readonly layer = Layer.effect(TenantSweeps, TenantSweeps.make)
}
