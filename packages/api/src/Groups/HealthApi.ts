import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Health, Readiness } from "../Domain/Health.js"
import { Unavailable } from "../Errors.js"

/** Liveness and readiness probes (no API key). */
export class HealthApi extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("healthz", "/healthz").addSuccess(Health).annotate(
      OpenApi.Summary,
      "Liveness: the process serves requests"
    )
  )
  .add(
    HttpApiEndpoint.get("readyz", "/readyz")
      .addSuccess(Readiness)
      .addError(Unavailable)
      .annotate(
        OpenApi.Summary,
        "Readiness: the store answers, the server is not shutting down and (LLM engine) some LLM endpoint is up"
      )
  )
  .annotate(OpenApi.Title, "Health")
{}
