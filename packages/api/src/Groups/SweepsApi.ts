import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ListSweepsParams, SweepList, SweepView } from "../Domain/Sweeps.js"
import { Authentication } from "../Security.js"

const id = HttpApiSchema.param("id", Schema.String)

/** Sweeps (`deepnote run --sweep`): grids of runs, one per cell; a tenant sees the sweeps whose runs it sees. */
export class SweepsApi extends HttpApiGroup.make("sweeps")
  .add(
    HttpApiEndpoint.get("list", "/v1/sweeps")
      .setUrlParams(ListSweepsParams)
      .addSuccess(SweepList)
      .annotate(
        OpenApi.Description,
        "The sweeps the tenant sees, newest first, `limit` (default 100, at most 1,000) at a time: `nextBefore`, when " +
          "present, is the `before` of the next page. 404 when `before` is not a sweep the tenant sees."
      )
  )
  .add(
    HttpApiEndpoint.get("get")`/v1/sweeps/${id}`
      .addSuccess(SweepView)
      .annotate(OpenApi.Description, "Every cell of the sweep in order, with its run once created.")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Sweeps")
{}
