import { Api, Comparison, CurrentTenant, NotFound, ValidationError } from "@deepnote-rag/api"
import { compareRuns } from "@deepnote-rag/runs"
import { RunStore } from "@deepnote-rag/store"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { RunManager } from "../../Runs/RunManager.js"
import { toRunView } from "../../Runs/RunView.js"
import { storeFailure } from "../StoreFailure.js"

export const CompareHandlers = HttpApiBuilder.group(Api, "compare", (handlers) =>
  Effect.gen(function*() {
    const runs = yield* RunManager
    const store = yield* RunStore
    return handlers.handle("compare", ({ urlParams }) =>
      Effect.gen(function*() {
        const tenant = yield* CurrentTenant
        // both runs must be the tenant's (404 otherwise) before anything of them is read
        const base = yield* runs.owned(tenant, urlParams.base)
        const candidate = yield* runs.owned(tenant, urlParams.candidate)
        const compared = yield* compareRuns(base.id, candidate.id, {
          ...(urlParams.resamples === undefined ? {} : { resamples: urlParams.resamples }),
          ...(urlParams.seed === undefined ? {} : { seed: urlParams.seed })
        }).pipe(
          Effect.provideService(RunStore, store),
          Effect.catchTags({
            NothingToCompare: (e) => ValidationError.of(e.message, "candidate"),
            RunNotFound: (e) => NotFound.of(`run ${e.runId} not found`),
            StoreError: storeFailure
          })
        )
        return new Comparison({
          ...compared.comparison,
          base: toRunView(compared.base, tenant),
          candidate: toRunView(compared.candidate, tenant)
        })
      }))
  }))
