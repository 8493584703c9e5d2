/**
 * The ingest worker thread's entry (see `IngestWorkerPool`): it opens the home's collections itself (its own SQLite
 * connections; WAL lets the server's connection search meanwhile) and runs `IngestUpload` requests.
 */
import { Home } from "@deepnote-rag/core"
import { Collections } from "@deepnote-rag/retrieval"
import { WorkerRunner } from "@effect/platform"
import { NodeRuntime, NodeWorkerRunner } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { IngestRequest } from "./IngestProtocol.js"
import { ingestUpload } from "./UploadIngest.js"

/**
 * Ingest is background work: on Linux this thread runs at nice 10 (`setpriority` on its thread id, which Linux
 * applies to that thread alone), so on busy cores the scheduler prefers the event loop. Measured with
 * `benchmarks/server/uploads.mjs` (3 × 32 MB, 2 cores at load 5–6): `/readyz` p99 37–46 ms at nice 10 against
 * 60–68 ms at nice 0, indexing time about the same. Elsewhere the thread keeps the normal priority.
 */
const backgroundPriority = Effect.try(() => {
  const thread = Number(Path.basename(Fs.readlinkSync("/proc/thread-self")))
  Os.setPriority(thread, 10)
}).pipe(
  Effect.catchAll(() => Effect.logDebug("the ingest worker keeps the normal priority (no /proc/thread-self)"))
)

const IngestRunner = WorkerRunner.layerSerialized(IngestRequest, {
  InitialMessage: ({ home }) => Collections.layer.pipe(Layer.provide(Home.layer(home))),
  IngestUpload: ingestUpload
}).pipe(Layer.provide(NodeWorkerRunner.layer))

NodeRuntime.runMain(Effect.zipRight(backgroundPriority, WorkerRunner.launch(IngestRunner)))
