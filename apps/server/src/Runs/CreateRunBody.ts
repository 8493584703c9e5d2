import {
  ConfigPatch,
  CreateRunParams,
  CreateRunRequest,
  DatasetFormatName,
  MalformedBody,
  type Tenant,
  ValidationError
} from "@deepnote-rag/api"
import type { DatasetFormat } from "@deepnote-rag/eval"
import { HttpIncomingMessage, type HttpServerRequest } from "@effect/platform"
import { Effect, Either, Option, ParseResult, Schema } from "effect"
import { bodyStream, isJsonBody } from "../Collections/DocumentBody.js"
import { validationFromIssues } from "../Http/ErrorResponses.js"
import { type DatasetInput, storeDataset } from "./DatasetSource.js"
import type { NewRunInput } from "./NewRunPlan.js"

export type RunRequest = Omit<NewRunInput, "datasetFile"> & { readonly dataset: DatasetInput }

const decodeWith = <A, I>(schema: Schema.Schema<A, I>, prefix: ReadonlyArray<string> = []) => (value: unknown) =>
  Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "error" })(value).pipe(
    Effect.mapError((e) => validationFromIssues(ParseResult.ArrayFormatter.formatErrorSync(e), prefix))
  )

const formatOf = (format: string | undefined): DatasetFormat | undefined =>
  format === undefined || format === "auto" ? undefined : format as DatasetFormat

const fromJson = (text: string) =>
  Effect.gen(function*() {
    const value = yield* Either.try(() => JSON.parse(text) as unknown).pipe(
      Either.mapLeft((e) => MalformedBody.of(`the body is not valid JSON: ${String(e)}`))
    )
    const body = yield* decodeWith(CreateRunRequest)(value)
    if (body.jsonl === undefined && body.datasetPath === undefined) {
      return yield* ValidationError.of(
        "give the questions inline (jsonl) or as datasetPath: the body has neither",
        "jsonl"
      )
    }
    if (body.jsonl !== undefined && body.datasetPath !== undefined) {
      return yield* ValidationError.of("give the questions inline (jsonl) or as datasetPath, not both", "datasetPath")
    }
    const dataset: DatasetInput = body.jsonl !== undefined
      ? { _tag: "Upload", text: body.jsonl }
      : { _tag: "Path", path: body.datasetPath ?? "" }
    return {
      dataset,
      datasetField: body.jsonl !== undefined ? "jsonl" : "datasetPath",
      collection: body.collection,
      format: formatOf(body.format),
      limit: body.limit,
      skipBadLines: body.skipBadLines,
      label: body.label,
      concurrency: body.concurrency,
      config: body.config
    } satisfies RunRequest
  })

const QueryKnobs = Schema.Struct({
  collection: Schema.optional(CreateRunRequest.fields.collection.from),
  format: Schema.optional(DatasetFormatName),
  limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.positive())),
  skipBadLines: Schema.optional(Schema.BooleanFromString),
  label: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  concurrency: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 256)))
})

/** A JSON Lines body: the knobs are checked first (nothing is stored for a bad request), then the body is stored. */
const fromJsonLines = (
  request: HttpServerRequest.HttpServerRequest,
  params: typeof CreateRunParams.Type,
  tenant: Tenant
) =>
  Effect.gen(function*() {
    const { config: configText, ...rest } = params
    const knobs = yield* decodeWith(QueryKnobs)(rest)
    const configValue = configText === undefined
      ? undefined
      : yield* Either.try(() => JSON.parse(configText) as unknown).pipe(
        Either.mapLeft(() => MalformedBody.of("the config query parameter is not valid JSON", "config"))
      )
    const config = configValue === undefined ? undefined : yield* decodeWith(ConfigPatch, ["config"])(configValue)
    const limit = yield* HttpIncomingMessage.MaxBodySize
    const stored = yield* storeDataset(
      tenant,
      bodyStream(request),
      "dataset",
      Option.getOrUndefined(Option.map(limit, Number))
    )
    return {
      dataset: { _tag: "Stored", file: stored.file },
      datasetField: "dataset",
      collection: knobs.collection,
      format: formatOf(knobs.format),
      limit: knobs.limit,
      skipBadLines: knobs.skipBadLines,
      label: knobs.label,
      concurrency: knobs.concurrency,
      config
    } satisfies RunRequest
  })

/**
 * `POST /v1/runs`: a JSON request (read whole: it is one value), or a JSON Lines dataset streamed to disk with the
 * knobs as query parameters.
 */
export const readRunRequest = (
  request: HttpServerRequest.HttpServerRequest,
  params: typeof CreateRunParams.Type,
  tenant: Tenant
) =>
  isJsonBody(request)
    ? Effect.flatMap(Effect.orDie(request.text), fromJson)
    : fromJsonLines(request, params, tenant)
