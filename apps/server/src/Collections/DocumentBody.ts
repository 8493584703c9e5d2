import { MalformedBody, type Tenant, ValidationError } from "@deepnote-rag/api"
import { Home } from "@deepnote-rag/core"
import { HttpIncomingMessage, type HttpServerRequest } from "@effect/platform"
import { Effect, Option, Stream } from "effect"
import { randomBytes } from "node:crypto"
import * as Path from "node:path"
import { receiveUpload } from "../Uploads/ReceiveUpload.js"
import type { UploadKind } from "../Uploads/RecordCounter.js"
import { refuseBinary } from "../Uploads/TextCheck.js"

/** True when the request says its body is JSON (not JSON Lines). */
export const isJsonBody = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers["content-type"] ?? "application/json").toLowerCase().includes("application/json")

/** The request body as it arrives; a body that breaks off (the client went away) is a 400, not a server fault. */
export const bodyStream = (request: HttpServerRequest.HttpServerRequest) =>
  request.stream.pipe(Stream.mapError((e) => MalformedBody.of(`the body could not be read: ${e.message}`)))

/** Where a tenant's document uploads wait for their ingest job: `<home>/uploads/<tenant>/documents/`. */
export const documentsDir = (root: string, tenant: Tenant) => Path.join(root, "uploads", tenant.id, "documents")

/** A documents upload on disk, waiting for its ingest job. */
export interface StoredDocuments {
  readonly file: string
  readonly kind: UploadKind
  readonly sha256: string
  readonly bytes: number
  /** Records counted while receiving (the job's `received`). */
  readonly records: number
}

/**
 * Receives a documents upload (a JSON array, or JSON Lines) onto disk as it arrives, within the request's body limit
 * (413 past it). Nothing is parsed here: the ingest job validates and indexes it. A body that is not UTF-8 text is
 * refused (400) and an empty one too.
 */
export const receiveDocuments = (tenant: Tenant, request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const home = yield* Home
    const limit = yield* HttpIncomingMessage.MaxBodySize
    const kind: UploadKind = isJsonBody(request) ? "json" : "jsonl"
    const name = `d-${randomBytes(8).toString("hex")}.${kind}`
    const upload = yield* receiveUpload(bodyStream(request), {
      dir: documentsDir(home.root, tenant),
      name: () => name,
      kind,
      limit: Option.getOrUndefined(Option.map(limit, Number)),
      check: (file, received) =>
        Effect.zipRight(
          refuseBinary("documents")(file),
          received.records > 0 ? Effect.void : ValidationError.of(
            kind === "json"
              ? "the body must be a non-empty JSON array of documents (or JSON Lines)"
              : "no documents in the body",
            "documents"
          )
        )
    })
    return { file: upload.file, kind, sha256: upload.sha256, bytes: upload.bytes, records: upload.records }
  })
