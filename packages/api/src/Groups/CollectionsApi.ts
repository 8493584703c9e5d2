import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import {
  CollectionList,
  CollectionSummary,
  CreateCollection,
  DocumentInput,
  IngestJob,
  SearchResponse
} from "../Domain/Collections.js"
import { CollectionName, IntParam, JsonLines } from "../Domain/Names.js"
import { Conflict } from "../Errors.js"
import { Authentication } from "../Security.js"

const name = HttpApiSchema.param("name", CollectionName)

/** The tenant's BM25 collections: create, upload documents (background job), search. */
export class CollectionsApi extends HttpApiGroup.make("collections")
  .add(HttpApiEndpoint.get("list", "/v1/collections").addSuccess(CollectionList))
  .add(
    HttpApiEndpoint.post("create", "/v1/collections")
      .setPayload(CreateCollection)
      .addSuccess(CollectionSummary, { status: 201 })
      .addError(Conflict)
  )
  .add(HttpApiEndpoint.get("get")`/v1/collections/${name}`.addSuccess(CollectionSummary))
  .add(HttpApiEndpoint.del("drop")`/v1/collections/${name}`.addSuccess(HttpApiSchema.NoContent))
  .add(
    HttpApiEndpoint.post("addDocuments")`/v1/collections/${name}/documents`
      .setPayload(Schema.Union(Schema.Array(DocumentInput), JsonLines))
      .addSuccess(IngestJob, { status: 202 })
      .annotate(
        OpenApi.Description,
        "A JSON array of documents, or JSON Lines (`Content-Type: application/x-ndjson`), stored as it arrives (202 once " +
          "on disk). A background job validates every record (a bad one fails the job, naming its line, and nothing is " +
          "added), then adds the documents (poll its status)."
      )
  )
  .add(
    HttpApiEndpoint.get("job")`/v1/collections/${name}/jobs/${HttpApiSchema.param("jobId", Schema.String)}`.addSuccess(
      IngestJob
    )
  )
  .add(
    HttpApiEndpoint.get("search")`/v1/collections/${name}/search`
      .setUrlParams(Schema.Struct({ q: Schema.String, k: Schema.optional(IntParam(1, 100)) }))
      .addSuccess(SearchResponse)
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Collections")
{}
