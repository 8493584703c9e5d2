import * as Fs from "node:fs"
import * as Path from "node:path"

/** Where collections live under the home: `<root>/collections`. */
export const collectionsDir = (root: string): string => Path.join(root, "collections")

/** The file of one collection: `<root>/collections/<name>.sqlite`. */
export const collectionFile = (root: string, name: string): string => Path.join(collectionsDir(root), `${name}.sqlite`)

const extension = ".sqlite"

/** The ANN index of a collection's vectors, beside its file: `<root>/collections/<name>.usearch` (+ `.json`). */
export const annFileOf = (collectionFile: string): string =>
  (collectionFile.endsWith(extension) ? collectionFile.slice(0, -extension.length) : collectionFile) + ".usearch"

/** Collection names found in the directory, sorted (none when it does not exist yet). */
export const listCollections = (root: string): ReadonlyArray<string> => {
  const dir = collectionsDir(root)
  return Fs.existsSync(dir)
    ? Fs.readdirSync(dir).filter((f) => f.endsWith(extension)).map((f) => f.slice(0, -extension.length)).sort()
    : []
}

/** Bytes on disk of a collection: the file, its write-ahead log and its ANN file. */
export const collectionSize = (file: string): number =>
  [file, `${file}-wal`, annFileOf(file)].reduce(
    (n, path) => n + (Fs.statSync(path, { throwIfNoEntry: false })?.size ?? 0),
    0
  )

/** Deletes a collection's file, log, shared-memory index and ANN file; true when the file existed. */
export const removeCollectionFile = (file: string): boolean => {
  const existed = Fs.existsSync(file)
  for (const suffix of ["", "-wal", "-shm"]) Fs.rmSync(file + suffix, { force: true })
  for (const suffix of ["", ".json"]) Fs.rmSync(annFileOf(file) + suffix, { force: true })
  return existed
}
