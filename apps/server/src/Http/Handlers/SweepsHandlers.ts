import { Api, CurrentTenant } from "@deepnote-rag/api"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { TenantSweeps } from "../../Runs/TenantSweeps.js"

export const SweepsHandlers = HttpApiBuilder.group(Api, "sweeps", (handlers) =>
  Effect.gen(function*() {
    const sweeps = yield* TenantSweeps
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentTenant, (tenant) => sweeps.list(tenant, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(CurrentTenant, (tenant) => sweeps.get(tenant, path.id)))
  }))
