import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/** A collection name as tenants see it (stored namespaced per tenant). */
export const CollectionName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/u, {
    message: () => "a collection name is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"
  }),
  Schema.annotations({ identifier: "CollectionName" })
)

/** The body of streaming responses: server-sent events. */
export const EventStream = Schema.String.pipe(
  HttpApiSchema.withEncoding({ kind: "Text", contentType: "text/event-stream" }),
  Schema.annotations({ description: "text/event-stream" })
)

/** A JSON Lines request body (`application/x-ndjson`). */
export const JsonLines = Schema.String.pipe(
  HttpApiSchema.withEncoding({ kind: "Text", contentType: "application/x-ndjson" }),
  Schema.annotations({ description: "JSON Lines: one JSON object per line" })
)

/** A positive integer given as a query parameter. */
export const IntParam = (min: number, max: number) =>
  Schema.NumberFromString.pipe(
    Schema.int(),
    Schema.between(min, max, { message: () => `must be an integer between ${min} and ${max}` })
  )
