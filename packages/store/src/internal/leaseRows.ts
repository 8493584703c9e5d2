import { Schema } from "effect"
import type { Lease, LeaseOwner } from "../Domain/Lease.js"
import { DbInt, DbMillis } from "./sql.js"

/** The lease columns of `runs`, as `RunLeases` reads and writes them. */
export const LeaseRow = Schema.Struct({
  lease_owner_id: Schema.String,
  lease_owner_host: Schema.String,
  lease_owner_pid: Schema.Int,
  lease_owner_label: Schema.NullOr(Schema.String),
  lease_heartbeat_at: DbMillis,
  lease_expires_at: DbMillis
})
/** The lease columns of a run, whoever holds it; `live` is 1 while a lease is held and unexpired. */
export const CurrentRow = Schema.Struct({
  lease_owner_id: Schema.NullOr(Schema.String),
  lease_owner_host: Schema.NullOr(Schema.String),
  lease_owner_pid: Schema.NullOr(Schema.Int),
  lease_owner_label: Schema.NullOr(Schema.String),
  lease_heartbeat_at: Schema.NullOr(DbMillis),
  lease_expires_at: Schema.NullOr(DbMillis),
  live: DbInt
})

export const ownerOf = (id: string, host: string, pid: number, label: string | null): LeaseOwner =>
  label === null ? { id, host, pid } : { id, host, pid, label }

export const leaseOf = (runId: string, r: typeof LeaseRow.Type): Lease => ({
  runId,
  owner: ownerOf(r.lease_owner_id, r.lease_owner_host, r.lease_owner_pid, r.lease_owner_label),
  heartbeatAt: r.lease_heartbeat_at,
  expiresAt: r.lease_expires_at
})

export const Take = Schema.Struct({
  runId: Schema.String,
  ownerId: Schema.String,
  host: Schema.String,
  pid: Schema.Int,
  label: Schema.NullOr(Schema.String),
  ttlMs: Schema.Int,
  nowMs: Schema.Int
})
export const Renewal = Schema.Struct({
  runId: Schema.String,
  ownerId: Schema.String,
  ttlMs: Schema.Int,
  nowMs: Schema.Int
})
export const Lookup = Schema.Struct({ runId: Schema.String, nowMs: Schema.Int })
export const Release = Schema.Struct({ runId: Schema.String, ownerId: Schema.String })

export const leaseColumns = "lease_owner_id, lease_owner_host, lease_owner_pid, lease_owner_label, " +
  "lease_heartbeat_at, lease_expires_at"
