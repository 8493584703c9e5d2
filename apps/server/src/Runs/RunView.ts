import { RunView, type Tenant } from "@deepnote/api"
import { collectionOf, runStateOf } from "@deepnote/runs"
import type { Run } from "@deepnote/store"
import { Option } from "effect"

/** Whether a run is queued or executing (its questions are jobs for workers on any replica or machine). */
export const isActiveRun = (run: Run): boolean =>
  run.status === "running" || (run.status === "created" && run.execution === "queue")

/** A stored run as the tenant sees it (collection name without the tenant prefix). */
export const toRunView = (run: Run, tenant: Tenant): RunView => {
  const stored = collectionOf(run)
  return new RunView({
    id: run.id,
    status: run.status,
    state: runStateOf(run, Option.none(), 0).state,
    active: isActiveRun(run),
    collection: stored.startsWith(tenant.namespace) ? stored.slice(tenant.namespace.length) : stored,
    ...(run.manifest.label === undefined ? {} : { label: run.manifest.label }),
    ...(run.sweepId === undefined ? {} : { sweepId: run.sweepId }),
    ...(run.message === undefined ? {} : { message: run.message }),
    counts: run.counts,
    config: run.manifest.config,
    dataset: {
      hash: run.manifest.dataset.hash,
      ...(run.manifest.dataset.format === undefined ? {} : { format: run.manifest.dataset.format }),
      ...(run.manifest.dataset.count === undefined ? {} : { count: run.manifest.dataset.count })
    },
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    ...(run.startedAt === undefined ? {} : { startedAt: run.startedAt }),
    ...(run.finishedAt === undefined ? {} : { finishedAt: run.finishedAt })
  })
}
