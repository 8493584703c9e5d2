import { Data, Schema } from "effect"

/**
 * Who holds a run's lease: one process. `id` identifies the holder (unique per process start, e.g. a random id);
 * `host`, `pid` and `label` say where it runs, for people.
 */
export const LeaseOwner = Schema.Struct({
  id: Schema.String,
  host: Schema.String,
  pid: Schema.Int,
  label: Schema.optional(Schema.String)
})
export type LeaseOwner = typeof LeaseOwner.Type

/** A live lease: `owner` runs the run until `expiresAt` unless it renews the lease first. */
export const Lease = Schema.Struct({
  runId: Schema.String,
  owner: LeaseOwner,
  heartbeatAt: Schema.Date,
  expiresAt: Schema.Date
})
export type Lease = typeof Lease.Type

/** The outcome of `RunLeases.acquire`: the lease is the caller's, or another live owner holds it. */
export type LeaseAcquisition = Data.TaggedEnum<{
  Acquired: { readonly lease: Lease }
  HeldBy: { readonly owner: LeaseOwner; readonly heartbeatAt: Date; readonly expiresAt: Date }
}>
export const LeaseAcquisition = Data.taggedEnum<LeaseAcquisition>()

/** The caller no longer holds the run's lease: it expired and another owner took it, or it was released. */
export class LeaseLost extends Schema.TaggedError<LeaseLost>()("LeaseLost", {
  runId: Schema.String,
  ownerId: Schema.String,
  /** The owner that holds it now, if any. */
  heldBy: Schema.optional(Schema.String)
}) {
  override get message(): string {
    return `lease on run ${this.runId} lost by ${this.ownerId}` +
      (this.heldBy === undefined ? " (released)" : ` (now held by ${this.heldBy})`)
  }
}
