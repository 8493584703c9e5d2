import { defaultRunConfig } from "@deepnote-rag/core"
import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import { RunManifest } from "../src/index.js"

/** A fresh directory under the OS temp dir, removed when the scope closes. */
export const tempDir = Effect.flatMap(
  FileSystem.FileSystem,
  (fs) => fs.makeTempDirectoryScoped({ prefix: "deepnote-store-" })
)
  .pipe(Effect.provide(NodeFileSystem.layer), Effect.orDie)

/** An id no other test of a suite uses (suites share one database). */
export const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString("hex")}`

export const manifest = (overrides: Partial<ConstructorParameters<typeof RunManifest>[0]> = {}) =>
  new RunManifest({
    config: defaultRunConfig,
    configHash: "cfg-hash",
    codeVersion: "test",
    dataset: { path: "data/q.jsonl", hash: "data-hash" },
    ...overrides
  })

export { question, result } from "../src/testing/Results.js"

/** Bytes and modification time of a file, to prove it was not touched. */
export const fingerprint = (file: string) => {
  const stat = Fs.statSync(file)
  return { bytes: Fs.readFileSync(file).toString("base64"), mtimeMs: stat.mtimeMs, size: stat.size }
}
