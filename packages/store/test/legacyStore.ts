import { copyFileSync } from "node:fs"

/**
 * A store as the last release before this one left it (schema version 3: its migrations 1 to 3, no runs), committed
 * as a file (fixtures/store-v3.sqlite) so that the proof that such stores open and are upgraded does not rest on the
 * code under test: the migrations' statements written out again would be the same code twice. The file is history:
 * never rewrite it.
 */
const legacyStore = new URL("fixtures/store-v3.sqlite", import.meta.url)

/** Writes a copy of the version-3 store to `filename`. */
export const writeLegacyStore = (filename: string): void => copyFileSync(legacyStore, filename)
