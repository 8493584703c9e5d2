import { StoreError } from "../Domain/Errors.js"
import { schemaVersion } from "../Migrations.js"

/**
 * Whether this build may open a store whose newest migration is `version`: always when it knows that migration; past
 * it, only when the store records the lowest schema version it needs (`oldestSchema`: undefined for a store without
 * `deepnote_readers`) and this build knows that one.
 */
export const mayOpen = (version: number, oldestSchema: number | undefined): boolean =>
  version <= schemaVersion || (oldestSchema !== undefined && oldestSchema <= schemaVersion)

/** The refusal of a store a newer build wrote and this one may not open (`mayOpen`), naming what it needs. */
export const newerStore = (name: string, version: number, oldestSchema: number | undefined): StoreError => {
  const needs = oldestSchema === undefined ? "" : `, which needs a build that knows ${oldestSchema}`
  return new StoreError({
    message: `${name} was written by a newer DeepNote (schema version ${version}${needs}; this build knows up to ` +
      `${schemaVersion}); it was left untouched`
  })
}
