import { type RunManifestView, RunView, type Tenant } from "@deepnote-rag/api"
import { withoutCredentials } from "@deepnote-rag/core"
import { collectionOf, runStateOf } from "@deepnote-rag/runs"
import type { Run } from "@deepnote-rag/store"
import { Option } from "effect"

/** Whether a run is queued or executing (its questions are jobs for workers on any replica or machine). */
export const isActiveRun = (run: Run): boolean =>
  run.status === "running" || (run.status === "created" && run.execution === "queue")

/** The manifest's reproduction details (the dataset's path on the server stays private). */
const manifestView = (manifest: Run["manifest"]): RunManifestView => ({
  models: manifest.models,
  servers: manifest.servers.map((s) => ({ ...s, endpoint: withoutCredentials(s.endpoint) })),
  ...(manifest.promptSetHash === undefined ? {} : { promptSetHash: manifest.promptSetHash }),
  configHash: manifest.configHash,
  ...(manifest.collectionFingerprint === undefined ? {} : { collectionFingerprint: manifest.collectionFingerprint }),
  ...(manifest.embeddings === undefined ? {} : { embeddings: manifest.embeddings }),
  codeVersion: manifest.codeVersion
})

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
    ...(run.manifest.sweep === undefined ? {} : { sweepCell: run.manifest.sweep.cell }),
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
    ...(run.finishedAt === undefined ? {} : { finishedAt: run.finishedAt }),
    manifest: manifestView(run.manifest)
  })
}
