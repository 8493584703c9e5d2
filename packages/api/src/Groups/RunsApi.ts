import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { EventStream, JsonLines } from "../Domain/Names.js"
import {
  CreateRunParams,
  CreateRunRequest,
  ItemDetail,
  ListRunsParams,
  ResultsParams,
  ResumeParams,
  RunList,
  RunResults,
  RunView
} from "../Domain/Runs.js"
import { Conflict, RateLimited } from "../Errors.js"
import { Authentication } from "../Security.js"

const id = HttpApiSchema.param("id", Schema.String)
const itemId = HttpApiSchema.param("itemId", Schema.String)

/** Resumable evaluation runs, executed by the server in the background and kept in the same store as the CLI's. */
export class RunsApi extends HttpApiGroup.make("runs")
  .add(
    HttpApiEndpoint.post("create", "/v1/runs")
      .setPayload(Schema.Union(CreateRunRequest, JsonLines))
      .setUrlParams(CreateRunParams)
      .addSuccess(RunView, { status: 202 })
      .addError(RateLimited)
      .annotate(
        OpenApi.Description,
        "JSON (`jsonl` inline or `datasetPath` under `<home>/datasets/`), or a raw JSON Lines body " +
          "(`Content-Type: application/x-ndjson`) with the knobs as query parameters (`config` as a JSON object)."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v1/runs")
      .setUrlParams(ListRunsParams)
      .addSuccess(RunList)
      .annotate(
        OpenApi.Description,
        "The tenant's runs, newest first, `limit` (default 100, at most 1,000) at a time: `nextBefore`, when present, " +
          "is the `before` of the next page. 404 when `before` is not a run the tenant sees. `dataset` (a run's " +
          "`dataset.hash`) lists only the runs over that dataset."
      )
  )
  .add(HttpApiEndpoint.get("get")`/v1/runs/${id}`.addSuccess(RunView))
  .add(
    HttpApiEndpoint.post("resume")`/v1/runs/${id}/resume`.setUrlParams(ResumeParams).addSuccess(RunView, {
      status: 202
    }).addError(Conflict)
      .addError(RateLimited)
  )
  .add(HttpApiEndpoint.post("cancel")`/v1/runs/${id}/cancel`.addSuccess(RunView, { status: 202 }))
  .add(
    HttpApiEndpoint.get("events")`/v1/runs/${id}/events`
      .addSuccess(EventStream)
      .annotate(
        OpenApi.Description,
        "Server-sent events: every pipeline event of the run (`id` = its sequence number in the store's event log, so " +
          "reconnecting with `Last-Event-ID` continues without duplicates or gaps), then `end` with the run when it stops."
      )
  )
  .add(HttpApiEndpoint.get("results")`/v1/runs/${id}/results`.setUrlParams(ResultsParams).addSuccess(RunResults))
  .add(
    HttpApiEndpoint.get("item")`/v1/runs/${id}/items/${itemId}`
      .addSuccess(ItemDetail)
      .annotate(OpenApi.Description, "One question of the run: its result with the trace, its scores, its gold titles.")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Runs")
{}
