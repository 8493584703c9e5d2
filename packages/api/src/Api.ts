import { HttpApi, OpenApi } from "@effect/platform"
import {
  BadGateway,
  InternalError,
  MalformedBody,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  RequestTimeout,
  Unavailable,
  ValidationError
} from "./Errors.js"
import { AskApi } from "./Groups/AskApi.js"
import { CollectionsApi } from "./Groups/CollectionsApi.js"
import { CompareApi } from "./Groups/CompareApi.js"
import { HealthApi } from "./Groups/HealthApi.js"
import { OpenAiApi } from "./Groups/OpenAiApi.js"
import { RunsApi } from "./Groups/RunsApi.js"
import { SweepsApi } from "./Groups/SweepsApi.js"

/** The DeepNote HTTP API: the server implements it, the typed client (`HttpApiClient.make(Api)`) and tests call it. */
export class Api extends HttpApi.make("deepnote")
  .add(HealthApi)
  .add(AskApi)
  .add(CollectionsApi)
  .add(RunsApi)
  .add(SweepsApi)
  .add(CompareApi)
  .add(OpenAiApi)
  .addError(ValidationError)
  .addError(MalformedBody)
  .addError(NotFound)
  .addError(MethodNotAllowed)
  .addError(PayloadTooLarge)
  .addError(BadGateway)
  .addError(Unavailable)
  .addError(RequestTimeout)
  .addError(InternalError)
  .annotate(OpenApi.Title, "DeepNote")
  .annotate(OpenApi.Version, "0.1.0")
  .annotate(
    OpenApi.Description,
    "Note-centric adaptive retrieval-augmented generation (arXiv 2410.08821). Every error is " +
      "`{ \"error\": { \"code\", \"message\", \"field\"? } }` with a stable `code`."
  )
{}
