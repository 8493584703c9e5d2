import { NotFound, SweepView, type Tenant } from "@deepnote-rag/api"
import { type SweepState, sweepState } from "@deepnote-rag/runs"
import { RunStore, Sweeps } from "@deepnote-rag/store"
import { Context, Effect, Layer } from "effect"
import { type StoreFailure, storeFailure } from "../Http/StoreFailure.js"
import { defaultListLimit, type ListPage, pageOf } from "./ListPage.js"
import { RunManager } from "./RunManager.js"
import { toRunView } from "./RunView.js"

/** The sweeps a tenant sees: the `--no-auth` tenant every sweep of the home, others those made of their runs only. */
export interface TenantSweepsService {
  /**
   * A page of the sweeps the tenant sees, newest first; `nextBefore` when older ones exist (404 for an unseen
   * `before`). A keyed tenant's page is read from the sweeps with a run of its own; one that another tenant's run
   * shares is left out, so such a page may hold fewer than `limit` and still have a next.
   */
  readonly list: (
    tenant: Tenant,
    page?: ListPage
  ) => Effect.Effect<
    { readonly sweeps: ReadonlyArray<SweepView>; readonly nextBefore?: string },
    StoreFailure | NotFound
  >
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

      /** Whether the tenant sees each run of the sweep's cells (`--no-auth`: every one). */
      const runsSeen = (tenant: Tenant, state: SweepState) =>
        Effect.forEach(
          state.cells.flatMap((c) => (c.run === undefined ? [] : [c.run.id])),
          (id) => runs.sees(tenant, id)
        )

      /** The sweep's state if the tenant sees it: every run of it is the tenant's (and it has one), or the whole home. */
      const visible = (tenant: Tenant, sweepId: string) =>
        Effect.gen(function*() {
          const state = yield* sweepState(sweepId).pipe(Effect.provide(services))
          if (tenant.wholeHome === true) return state
          const seen = yield* runsSeen(tenant, state)
          return seen.length > 0 && seen.every((s) => s) ? state : undefined
        })

      /**
       * A listing's cursor must be a sweep the tenant's listing can reach — one it sees, or one it was shown past (a
       * run of its own beside another tenant's); any other id is a 404, as an unknown one is.
       */
      const checkCursor = (tenant: Tenant, sweepId: string) =>
        Effect.gen(function*() {
          // `--no-auth` reaches every sweep: its row is enough; a keyed tenant needs a run of its own in it
          if (tenant.wholeHome === true) return yield* Effect.asVoid(sweeps.get(sweepId))
          const state = yield* sweepState(sweepId).pipe(Effect.provide(services))
          if (!(yield* runsSeen(tenant, state)).some((s) => s)) return yield* NotFound.of(`sweep ${sweepId} not found`)
        }).pipe(
          Effect.catchTags({ SweepNotFound: () => NotFound.of(`sweep ${sweepId} not found`), StoreError: storeFailure })
        )

      const get = Effect.fn("TenantSweeps.get")(function*(tenant: Tenant, sweepId: string) {
        yield* Effect.annotateCurrentSpan({ "deepnote.sweep.id": sweepId, "deepnote.tenant.id": tenant.id })
        const state = yield* visible(tenant, sweepId).pipe(
          Effect.catchTags({ SweepNotFound: () => Effect.succeed(undefined), StoreError: storeFailure })
        )
        if (state === undefined) return yield* NotFound.of(`sweep ${sweepId} not found`)
        return toSweepView(state, tenant)
      })

      const list = Effect.fn("TenantSweeps.list")(function*(tenant: Tenant, page: ListPage = {}) {
        yield* Effect.annotateCurrentSpan({ "deepnote.tenant.id": tenant.id })
        const limit = page.limit ?? defaultListLimit
        // an unknown cursor would read as "no older sweeps": refused instead, like every sweep the tenant does not see
        if (page.before !== undefined) yield* checkCursor(tenant, page.before)
        // one more than the page: whether older sweeps exist
        const listed = yield* sweeps.list({
          before: page.before,
          limit: limit + 1,
          withRunsOf: tenant.wholeHome === true ? undefined : tenant.id
        }).pipe(Effect.mapError(storeFailure), Effect.map((all) => pageOf(all, limit, (sweep) => sweep.id)))
        const states = yield* Effect.forEach(listed.entries, (s) =>
          visible(tenant, s.id).pipe(
            Effect.catchTags({ SweepNotFound: () => Effect.succeed(undefined), StoreError: storeFailure })
          ))
        const shown = states.flatMap((state) => (state === undefined ? [] : [toSweepView(state, tenant)]))
        // the cursor is the page's last listed sweep (one the tenant does not see still moves the page on)
        return listed.nextBefore === undefined ? { sweeps: shown } : { sweeps: shown, nextBefore: listed.nextBefore }
      })

      return TenantSweeps.of({ list, get })
    }
  )

  static readonly layer = Layer.effect(TenantSweeps, TenantSweeps.make)
}
