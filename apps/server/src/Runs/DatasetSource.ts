import { type Tenant, ValidationError } from "@deepnote/api"
import { Home } from "@deepnote/core"
import { sha256Hex } from "@deepnote/store"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"

/** Where a run's questions come from: an upload (stored under the home) or a file under `<home>/datasets/`. */
export type DatasetInput =
  | { readonly _tag: "Upload"; readonly text: string }
  | { readonly _tag: "Path"; readonly path: string }

const inside = (root: string, file: string) => {
  const relative = Path.relative(root, file)
  return relative !== "" && !relative.startsWith("..") && !Path.isAbsolute(relative)
}

/**
 * The dataset file of a new run. Uploads are written once to `<home>/uploads/<tenant>/<sha256>.jsonl` (the run's
 * manifest points there, so a resume after a restart reads the same bytes). Paths are resolved against
 * `<home>/datasets/` and must stay inside it after following symlinks.
 */
export const datasetFile = (tenant: Tenant, input: DatasetInput) =>
  Effect.gen(function*() {
    const home = yield* Home
    if (input._tag === "Upload") {
      const dir = Path.join(home.root, "uploads", tenant.id)
      const file = Path.join(dir, `${sha256Hex(input.text)}.jsonl`)
      yield* Effect.sync(() => {
        Fs.mkdirSync(dir, { recursive: true })
        if (!Fs.existsSync(file)) Fs.writeFileSync(file, input.text)
      })
      return file
    }
    const root = Path.join(home.root, "datasets")
    const refused = ValidationError.of(
      `datasetPath must name a file under the server's datasets directory (<home>/datasets/)`,
      "datasetPath"
    )
    const candidate = Path.resolve(root, input.path)
    if (!inside(root, candidate)) return yield* refused
    const real = yield* Effect.try({
      try: () => ({ root: Fs.realpathSync(root), file: Fs.realpathSync(candidate) }),
      catch: () => refused
    })
    if (!inside(real.root, real.file) || !Fs.statSync(real.file).isFile()) return yield* refused
    return real.file
  })
