import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { SweepList, SweepView } from "../Domain/Sweeps.js"
import { Authentication } from "../Security.js"

const id = HttpApiSchema.param("id", Schema.String)

/** Sweeps (`deepnote run --sweep`): grids of runs, one per cell; a tenant sees the sweeps whose runs it sees. */
export class SweepsApi extends HttpApiGroup.make("sweeps")
  .add(HttpApiEndpoint.get("list", "/v1/sweeps").addSuccess(SweepList))
  .add(
    HttpApiEndpoint.get("get")`/v1/sweeps/${id}`
      .addSuccess(SweepView)
      .annotate(OpenApi.Description, "Every cell of the sweep in order, with its run once created.")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Sweeps")
{}
