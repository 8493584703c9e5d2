import * as Fs from "node:fs"
import * as Path from "node:path"

/**
 * A collection file as builds before migrations wrote it (schema version 1, no migrations table, no application id),
 * holding the documents Paris, Berlin and Rome, with its ingest progress for `/corpus/old.jsonl`: committed as a file
 * (fixtures/collection-v1.sqlite) so that the proof that such files open does not rest on the code under test — that
 * version's statements written out again would be the index schema's twice. The file is history: never rewrite it.
 */
const legacyCollection = new URL("../fixtures/collection-v1.sqlite", import.meta.url)

/** Writes a copy of the version-1 collection file to `file`. */
export const writeLegacyCollection = (file: string): void => {
  Fs.mkdirSync(Path.dirname(file), { recursive: true })
  Fs.copyFileSync(legacyCollection, file)
}
