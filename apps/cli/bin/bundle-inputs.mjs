// What the bundle was made from (dist/bundle/inputs.json): each workspace file's path, relative to the repository, with
// the SHA-256 of its content then. scripts/bundle-cli.mjs writes the records; bin/deepnote.mjs reads them, and loads
// this file only when some input is newer than the bundle (turbo replays a cached bundle with the time it was first
// made, after `tsc -b` wrote every file anew).
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"

const contentHash = (url) => createHash("sha256").update(readFileSync(url)).digest("hex")

/** The records of the files at `paths` (relative to `root`, the repository's URL), as inputs.json holds them. */
export const inputRecords = (root, paths) => paths.map((path) => [path, contentHash(new URL(path, root))])

/** Whether every input `{ url, hash }` still holds the content it was bundled from (no hash, an older record: unknown). */
export const holdBundledContent = (inputs) =>
  inputs.every(({ hash, url }) => hash !== undefined && contentHash(url) === hash)
