import { causeCode, errorMessage, innermostCause } from "@deepnote-rag/core"

/** The system's codes for a network peer that cannot be reached or went away mid-conversation. */
const networkCodes: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "EAI_AGAIN"
])

/**
 * Postgres's SQLSTATEs for a server that is (re)starting, shutting down or full: class 08 (connection exception),
 * 57P01 admin_shutdown (a fast shutdown or `pg_terminate_backend`), 57P02 crash_shutdown, 57P03 cannot_connect_now
 * (starting up, shutting down, in recovery) and 53300 too_many_connections.
 */
const isServerUnavailableState = (code: string): boolean =>
  /^08[0-9A-Z]{3}$/.test(code) || code === "57P01" || code === "57P02" || code === "57P03" || code === "53300"

/** node-postgres reports a connection closed under it without a code. */
const droppedConnection =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect/i

/**
 * The database could not be reached, or dropped the connection (a Postgres restart or failover, a network failure):
 * the same work may succeed once it is back. A SQLite store's errors never are (a local file: there is nothing to wait
 * for).
 */
export const isConnectionLoss = (cause: unknown): boolean =>
  causeCode(cause, (code) => networkCodes.has(code) || isServerUnavailableState(code)) !== undefined ||
  droppedConnection.test(errorMessage(innermostCause(cause)))
