import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { StoreError } from "../Domain/Errors.js"

/** Turns a failure into a better explained one (e.g. "the file is corrupted"), or returns it as it is. */
export type Diagnosis = (error: StoreError) => Effect.Effect<StoreError>

// Keyed by the client object, so the services built over a store's SqlClient find the diagnosis its opener attached,
// without a service of its own in every layer's requirements.
const diagnoses = new WeakMap<SqlClient.SqlClient, Diagnosis>()

/** Attaches a diagnosis to the client the store was opened with (`StoreDatabase`). */
export const attachDiagnosis = (sql: SqlClient.SqlClient, diagnosis: Diagnosis): void => {
  diagnoses.set(sql, diagnosis)
}

/** The client's diagnosis; none for clients not opened by `StoreDatabase`. */
export const diagnosisOf = (sql: SqlClient.SqlClient): Diagnosis => diagnoses.get(sql) ?? Effect.succeed
