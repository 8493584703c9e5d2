/**
 * The ingest worker thread's entry (see `IngestWorkerPool`): it opens the home's collections itself (its own SQLite
 * connections; WAL lets the server's connection search meanwhile) and runs `IngestUpload` requests.
 */
import { Home } from "@deepnote/core"
import { Collections } from "@deepnote/retrieval"
import { WorkerRunner } from "@effect/platform"
import { NodeRuntime, NodeWorkerRunner } from "@effect/platform-node"
import { Layer } from "effect"
import { IngestRequest } from "./IngestProtocol.js"
import { ingestUpload } from "./UploadIngest.js"

const IngestRunner = WorkerRunner.layerSerialized(IngestRequest, {
  InitialMessage: ({ home }) => Collections.layer.pipe(Layer.provide(Home.layer(home))),
  IngestUpload: ingestUpload
}).pipe(Layer.provide(NodeWorkerRunner.layer))

NodeRuntime.runMain(WorkerRunner.launch(IngestRunner))
