import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { CompareParams, Comparison } from "../Domain/Compare.js"
import { Authentication } from "../Security.js"

/** Two runs compared question by question (the same comparison as `deepnote compare`). */
export class CompareApi extends HttpApiGroup.make("compare")
  .add(
    HttpApiEndpoint.get("compare", "/v1/compare")
      .setUrlParams(CompareParams)
      .addSuccess(Comparison)
      .annotate(
        OpenApi.Description,
        "Pairs the runs' questions by id: 404 when a run is unknown (or another tenant's), 400 when no question pairs."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Compare")
{}
