/**
 * Reply shapes of the Meilisearch v1 API, recorded from Meilisearch's own sources (field names, nesting, status codes
 * and messages exactly as published; ids, dates and counts are the replay's):
 * - summarized task, HTTP 202 from every enqueuing route — API reference, "Documents" and "Settings" pages
 *   (meilisearch/documentation `reference/api/documents.mdx`, `reference/api/settings.mdx`):
 *   `{ "taskUid": 1, "indexUid": "movies", "status": "enqueued", "type": "documentAdditionOrUpdate",
 *      "enqueuedAt": "2021-08-11T09:25:53.000000Z" }`
 * - task object of `GET /tasks/{uid}` — `reference/api/tasks.mdx` ("Task object", "Get one task") and the integration
 *   test `crates/meilisearch/tests/documents/add_documents.rs` of meilisearch/meilisearch (a failed upload):
 *   `{ "uid", "batchUid", "indexUid", "status", "type", "canceledBy": null, "details": { "receivedDocuments": 1,
 *      "indexedDocuments": 0 }, "error": { "message": "Document identifier `\"foo & bar\"` is invalid. …",
 *      "code": "invalid_document_id", "type": "invalid_request", "link": "https://docs.meilisearch.com/errors#invalid_document_id" },
 *      "duration", "enqueuedAt", "startedAt", "finishedAt" }` (`duration`/`finishedAt` null until it ends)
 * - `GET /indexes` and `GET /indexes/{uid}` — `reference/api/indexes.mdx`: `{ "uid", "createdAt", "updatedAt",
 *   "primaryKey" }`, the list as `{ "results", "offset", "limit", "total" }`; an unknown index is HTTP 404
 *   `{ "message": "Index `DOES_NOT_EXISTS` not found.", "code": "index_not_found", "type": "invalid_request", "link" }`
 *   (`crates/meilisearch/tests/index/get_index.rs`)
 * - `POST /indexes/{uid}/search` — `reference/api/search.mdx`: `{ "hits": [...], "offset", "limit",
 *   "estimatedTotalHits", "processingTimeMs", "query" }`, each hit with `"_rankingScore"` under `showRankingScore`
 * - `GET /indexes/{uid}/stats` — `reference/api/stats.mdx`: `{ "numberOfDocuments", "isIndexing", "fieldDistribution" }`
 * - `GET /health` — `reference/api/health.mdx`: `{ "status": "available" }`; `GET /version` —
 *   `reference/api/version.mdx`: `{ "commitSha", "commitDate", "pkgVersion" }`
 * - authentication — `crates/meilisearch/src/extractors/authentication/error.rs`, `crates/meilisearch-types/src/error.rs`
 *   and `crates/meilisearch/tests/auth/api_keys.rs`: no key is HTTP 401 `missing_authorization_header` ("The
 *   Authorization header is missing. It must use the bearer authorization method."), a wrong key HTTP 403
 *   `invalid_api_key` ("The provided API key is invalid."), both of type `auth`.
 */

/** The error object of every refused request and failed task. */
export interface MeiliErrorBody {
  readonly message: string
  readonly code: string
  readonly type: "invalid_request" | "internal" | "auth" | "system"
  readonly link: string
}

const errorBody = (code: string, type: MeiliErrorBody["type"], message: string): MeiliErrorBody => ({
  message,
  code,
  type,
  link: `https://docs.meilisearch.com/errors#${code}`
})

export const meiliErrors = {
  missingAuthorizationHeader: errorBody(
    "missing_authorization_header",
    "auth",
    "The Authorization header is missing. It must use the bearer authorization method."
  ),
  invalidApiKey: errorBody("invalid_api_key", "auth", "The provided API key is invalid."),
  indexNotFound: (uid: string) => errorBody("index_not_found", "invalid_request", `Index \`${uid}\` not found.`),
  indexAlreadyExists: (uid: string) =>
    errorBody("index_already_exists", "invalid_request", `Index \`${uid}\` already exists.`),
  taskNotFound: (uid: number) => errorBody("task_not_found", "invalid_request", `Task \`${uid}\` not found.`),
  invalidDocumentId: (id: unknown) =>
    errorBody(
      "invalid_document_id",
      "invalid_request",
      `Document identifier \`${
        JSON.stringify(id)
      }\` is invalid. A document identifier can be of type integer or string, only composed of alphanumeric characters (a-z A-Z 0-9), hyphens (-) and underscores (_), and can not be more than 511 bytes.`
    ),
  /** A system failure of a task (disk full), the kind an operator meets on a real server. */
  noSpaceLeftOnDevice: errorBody("no_space_left_on_device", "system", "No space left on device.")
}

export const enqueuedAt = "2021-08-11T09:25:53.000000Z"
const startedAt = "2021-08-11T09:25:53.002000Z"
const finishedAt = "2021-08-11T09:25:53.031713Z"

export type TaskStatus = "enqueued" | "processing" | "succeeded" | "failed"

/** The summarized task answered with HTTP 202. */
export const summarizedTask = (taskUid: number, indexUid: string, type: string) => ({
  taskUid,
  indexUid,
  status: "enqueued",
  type,
  enqueuedAt
})

/** The task object of `GET /tasks/{uid}` in one of its states. */
export const taskObject = (
  uid: number,
  indexUid: string,
  type: string,
  status: TaskStatus,
  details: Record<string, unknown> | null,
  error: MeiliErrorBody | null
) => ({
  uid,
  batchUid: status === "enqueued" ? null : uid,
  indexUid,
  status,
  type,
  canceledBy: null,
  details,
  error: status === "failed" ? error : null,
  duration: status === "succeeded" || status === "failed" ? "PT0.029713S" : null,
  enqueuedAt,
  startedAt: status === "enqueued" ? null : startedAt,
  finishedAt: status === "succeeded" || status === "failed" ? finishedAt : null
})

export const indexObject = (uid: string, primaryKey: string | null) => ({
  uid,
  createdAt: "2022-02-10T07:45:15.628261Z",
  updatedAt: "2022-02-21T15:28:43.496574Z",
  primaryKey
})

export const versionObject = (pkgVersion: string) => ({
  commitSha: "b46889b5f0f2f8b91438a08a358ba8f05fc09fc1",
  commitDate: "2024-11-15T09:51:54.278247+00:00",
  pkgVersion
})
