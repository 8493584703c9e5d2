import { hostname } from "node:os"
import { errorCode } from "./ErrorCause.js"

/**
 * Whether a process recorded as running on `host` with `pid` is known to have ended: it ran on this machine, it is not
 * this process, and signal 0 finds no such process (`ESRCH`). A process on another machine, or a pid that is alive
 * (even if the system reused it), or one we may not signal (`EPERM`), is never declared ended here — whoever records
 * owners this way must also let them expire.
 */
export const hasEndedHere = (host: string, pid: number): boolean => {
  if (host !== hostname() || pid === process.pid || !Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return false
  } catch (error) {
    return errorCode(error) === "ESRCH"
  }
}
