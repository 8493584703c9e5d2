import { type Tenant, ValidationError } from "@deepnote-rag/api"
import { Home } from "@deepnote-rag/core"
import { FileSystem } from "@effect/platform"
import { Effect, Stream } from "effect"
import * as Path from "node:path"
import { receiveUpload } from "../Uploads/ReceiveUpload.js"
import { refuseBinary } from "../Uploads/TextCheck.js"

/**
 * Where a run's questions come from: inline text of a JSON request, a JSON Lines body already stored by
 * `storeDataset`, or a file under `<home>/datasets/`.
 */
export type DatasetInput =
  | { readonly _tag: "Upload"; readonly text: string }
  | { readonly _tag: "Stored"; readonly file: string }
  | { readonly _tag: "Path"; readonly path: string }

const inside = (root: string, file: string) => {
  const relative = Path.relative(root, file)
  return relative !== "" && !relative.startsWith("..") && !Path.isAbsolute(relative)
}

/**
 * Stores a dataset upload as `<home>/uploads/<tenant>/<sha256>.jsonl` (the run's manifest points there, so a resume
 * after a restart reads the same bytes), streamed to disk with its receipt (see `receiveUpload`): a stored file of
 * the same name is used only if it matches its receipt, so a file torn by a crash is rewritten, never read short.
 * Binary and empty bodies are refused (400 naming `field`).
 */
export const storeDataset = <E, R>(
  tenant: Tenant,
  body: Stream.Stream<Uint8Array, E, R>,
  field: string,
  limit: number | undefined
) =>
  Effect.flatMap(Home, (home) =>
    receiveUpload(body, {
      dir: Path.join(home.root, "uploads", tenant.id),
      name: (sha256) => `${sha256}.jsonl`,
      kind: "jsonl",
      limit,
      check: (file, received) =>
        Effect.zipRight(
          refuseBinary(field)(file),
          received.records > 0 ? Effect.void : ValidationError.of("the body has no questions", field)
        )
    }))

/**
 * The dataset file of a new run. Paths are resolved against `<home>/datasets/` and must stay inside it after
 * following symlinks.
 */
export const datasetFile = (tenant: Tenant, input: DatasetInput) =>
  Effect.gen(function*() {
    if (input._tag === "Stored") return input.file
    if (input._tag === "Upload") {
      const bytes = new TextEncoder().encode(input.text)
      return (yield* storeDataset(tenant, Stream.succeed(bytes), "jsonl", undefined)).file
    }
    const home = yield* Home
    const fs = yield* FileSystem.FileSystem
    const root = Path.join(home.root, "datasets")
    const refused = ValidationError.of(
      `datasetPath must name a file under the server's datasets directory (<home>/datasets/)`,
      "datasetPath"
    )
    const candidate = Path.resolve(root, input.path)
    if (!inside(root, candidate)) return yield* refused
    const real = yield* Effect.all({ root: fs.realPath(root), file: fs.realPath(candidate) }).pipe(
      Effect.mapError(() => refused)
    )
    const stat = yield* fs.stat(real.file).pipe(Effect.mapError(() => refused))
    if (!inside(real.root, real.file) || stat.type !== "File") return yield* refused
    return real.file
  })
