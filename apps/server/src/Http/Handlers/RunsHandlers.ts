import { Api, CurrentTenant, NotFound } from "@deepnote-rag/api"
import { Home } from "@deepnote-rag/core"
import { runReport } from "@deepnote-rag/runs"
import { RunStore } from "@deepnote-rag/store"
import { traceFilesOf } from "@deepnote-rag/telemetry"
import { FileSystem, HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { readRunRequest } from "../../Runs/CreateRunBody.js"
import { datasetFile } from "../../Runs/DatasetSource.js"
import { toItemDetail, toItemView, toScoredItemViews } from "../../Runs/ItemView.js"
import { runEventStream } from "../../Runs/RunEventStream.js"
import { RunManager } from "../../Runs/RunManager.js"
import { toRunView } from "../../Runs/RunView.js"
import { sseResponse } from "../SseResponse.js"
import { storeFailure } from "../StoreFailure.js"

/** `Last-Event-ID` as a seq (absent or malformed: from the start). */
const lastEventId = (header: string | undefined) => {
  const n = Number(header ?? "0")
  return Number.isInteger(n) && n >= 0 ? n : 0
}

export const RunsHandlers = HttpApiBuilder.group(Api, "runs", (handlers) =>
  Effect.gen(function*() {
    const runs = yield* RunManager
    const store = yield* RunStore
    const fs = yield* FileSystem.FileSystem
    return handlers
      .handleRaw("create", ({ request, urlParams }) =>
        Effect.gen(function*() {
          const tenant = yield* CurrentTenant
          const { dataset, ...input } = yield* readRunRequest(request, urlParams, tenant)
          const file = yield* datasetFile(tenant, dataset)
          return yield* runs.create(tenant, { ...input, datasetFile: file })
        }))
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentTenant, (tenant) => runs.list(tenant, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(CurrentTenant, (tenant) => runs.get(tenant, path.id)))
      .handle("resume", ({ path, urlParams }) =>
        Effect.flatMap(
          CurrentTenant,
          (tenant) => runs.resume(tenant, path.id, { retryFailed: urlParams.retryFailed === "true" })
        ))
      .handle("cancel", ({ path }) => Effect.flatMap(CurrentTenant, (tenant) => runs.cancel(tenant, path.id)))
      .handle("events", ({ path, request }) =>
        Effect.gen(function*() {
          const tenant = yield* CurrentTenant
          const events = yield* runEventStream(tenant, path.id, lastEventId(request.headers["last-event-id"]))
          return sseResponse(events)
        }))
      .handle("item", ({ path }) =>
        Effect.gen(function*() {
          const tenant = yield* CurrentTenant
          const run = yield* runs.owned(tenant, path.id)
          const record = yield* store.getItem(run.id, path.itemId).pipe(
            Effect.catchTags({
              RunNotFound: () => NotFound.of(`run ${path.id} not found`),
              ItemNotFound: () => NotFound.of(`question ${path.itemId} not found in run ${path.id}`),
              StoreError: storeFailure
            })
          )
          const files = yield* traceFilesOf(yield* Home, run.id).pipe(Effect.provideService(FileSystem.FileSystem, fs))
          return toItemDetail(record, { traceRecorded: files.length > 0 })
        }))
      .handle("results", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const tenant = yield* CurrentTenant
          const run = yield* runs.owned(tenant, path.id)
          const limit = urlParams.limit ?? 500
          const page = yield* store.resultsPage(run.id, {
            afterSeq: urlParams.after ?? -1,
            limit,
            statuses: ["done", "failed", "pending", "running"]
          }).pipe(
            Effect.mapError(storeFailure)
          )
          const items = urlParams.scores === "true" ? toScoredItemViews(page) : page.map(toItemView)
          const last = page[page.length - 1]
          // The report reads the whole run: by default it comes with the first page only, so paging stays linear.
          const wantsReport = urlParams.report === undefined
            ? urlParams.after === undefined
            : urlParams.report === "true"
          const report = wantsReport ? yield* runReport(run.id).pipe(Effect.mapError(storeFailure)) : undefined
          return {
            run: toRunView(run, tenant),
            items,
            ...(last !== undefined && page.length === limit ? { nextAfter: last.seq } : {}),
            ...(report === undefined ? {} : { report })
          }
        }))
  }))
