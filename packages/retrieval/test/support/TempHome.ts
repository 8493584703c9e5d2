import { Home } from "@deepnote-rag/core"
import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { Collections } from "../../src/index.js"

/** A fresh directory under the OS temp dir, removed when the scope closes. */
export const tempDir = Effect.flatMap(
  FileSystem.FileSystem,
  (fs) => fs.makeTempDirectoryScoped({ prefix: "deepnote-retrieval-" })
).pipe(Effect.provide(NodeFileSystem.layer))

/** A temporary `Home` (removed with the layer). */
export const TempHome = Layer.unwrapScoped(Effect.map(tempDir, Home.layer))

/** `Collections` over a temporary home (the home is also provided, for writing corpus files beside it). */
export const TempCollections = Collections.layer.pipe(Layer.provideMerge(TempHome))

/** ../shared/data beside the repository (the evaluation data, see its README). */
export const dataDir = fileURLToPath(new URL("../../../../../shared/data", import.meta.url))

/** Writes the first `n` non-empty lines of a shared data file to `dir` and returns the new path. */
export const headOf = (file: string, n: number, dir: string): string => {
  const lines = Fs.readFileSync(Path.join(dataDir, file), "utf8").split("\n").filter((l) => l.trim().length > 0)
  const out = Path.join(dir, Path.basename(file))
  Fs.writeFileSync(out, lines.slice(0, n).join("\n") + "\n")
  return out
}

export const writeFile = (dir: string, name: string, content: string | Uint8Array): string => {
  const out = Path.join(dir, name)
  Fs.writeFileSync(out, content)
  return out
}
