import { Home } from "@deepnote/core"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { Collections } from "../../src/index.js"

/** A fresh directory under the OS temp dir, removed when the scope closes. */
export const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "deepnote-retrieval-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/** `Collections` over a temporary home (the home dir is also provided, for writing corpus files). */
export const TempCollections = Layer.unwrapScoped(
  Effect.map(tempDir, (dir) => Collections.layer.pipe(Layer.provideMerge(Home.layer(dir))))
)

/** ../shared/data beside the repository (the evaluation data, see its README). */
export const dataDir = fileURLToPath(new URL("../../../../../shared/data", import.meta.url))

/** Writes the first `n` non-empty lines of a shared data file to `dir` and returns the new path. */
export const headOf = (file: string, n: number, dir: string): string => {
  const lines = Fs.readFileSync(Path.join(dataDir, file), "utf8").split("\n").filter((l) => l.trim().length > 0).slice(
    0,
    n
  )
  const out = Path.join(dir, Path.basename(file))
  Fs.writeFileSync(out, lines.join("\n") + "\n")
  return out
}

export const writeFile = (dir: string, name: string, content: string): string => {
  const out = Path.join(dir, name)
  Fs.writeFileSync(out, content)
  return out
}
