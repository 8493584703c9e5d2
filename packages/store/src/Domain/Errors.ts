import { Schema } from "effect"
import { isConnectionLoss } from "../internal/connectionLoss.js"

/**
 * The store cannot be used: the file is not a DeepNote store, is corrupted or read-only, was written by a newer
 * schema, the Postgres server cannot be reached, or the database failed (disk full, busy past the timeout, a stored
 * row that no longer decodes). Nothing was changed when this is raised while opening.
 */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {
  /**
   * The database could not be reached or dropped the connection (a Postgres restart or failover): the same work may
   * succeed once it is back. Never true of a SQLite store.
   */
  get unreachable(): boolean {
    return isConnectionLoss(this.cause)
  }
}

/** No run has this id. */
export class RunNotFound extends Schema.TaggedError<RunNotFound>()("RunNotFound", {
  runId: Schema.String
}) {
  override get message(): string {
    return `run ${this.runId} not found`
  }
}

/** The run has no item with this id. */
export class ItemNotFound extends Schema.TaggedError<ItemNotFound>()("ItemNotFound", {
  runId: Schema.String,
  itemId: Schema.String
}) {
  override get message(): string {
    return `item ${this.itemId} not found in run ${this.runId}`
  }
}

/** No sweep has this id. */
export class SweepNotFound extends Schema.TaggedError<SweepNotFound>()("SweepNotFound", {
  sweepId: Schema.String
}) {
  override get message(): string {
    return `sweep ${this.sweepId} not found`
  }
}

/**
 * A replayed call does not match what the journal recorded at the same position: the pipeline, the config or the
 * prompts changed since the call was journaled, so the stored response cannot be trusted for this request.
 */
export class JournalMismatch extends Schema.TaggedError<JournalMismatch>()("JournalMismatch", {
  runId: Schema.String,
  itemId: Schema.String,
  seq: Schema.Int,
  kind: Schema.String,
  requestHash: Schema.String,
  storedKind: Schema.String,
  storedHash: Schema.String
}) {
  override get message(): string {
    return `journal mismatch in run ${this.runId}, item ${this.itemId}, call #${this.seq}: ` +
      `expected ${this.kind} ${this.requestHash.slice(0, 12)}, journal has ${this.storedKind} ${
        this.storedHash.slice(0, 12)
      }`
  }
}
