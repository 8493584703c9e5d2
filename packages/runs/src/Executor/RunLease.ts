import { hasEndedHere } from "@deepnote-rag/core"
import { type LeaseOwner, RunLeases, type RunNotFound, type StoreError } from "@deepnote-rag/store"
import { Clock, Data, Deferred, Duration, Effect, type Scope } from "effect"
import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import { beatEvery } from "../Heartbeat.js"

/** Another live process executes the run: its lease is held and not expired. */
export class RunBusy extends Data.TaggedError("RunBusy")<{
  readonly runId: string
  readonly owner: LeaseOwner
  /** Seconds since the owner's last heartbeat, when it was refused. */
  readonly heartbeatAgeSeconds: number
}> {
  override get message(): string {
    return `run ${this.runId} is being executed by ${describeOwner(this.owner)} ` +
      `(heartbeat ${this.heartbeatAgeSeconds} s ago); wait for it, stop it, or pass --wait to continue when it ends`
  }
}

/** `cli resume on host:1234` — for people. */
export const describeOwner = (owner: LeaseOwner): string =>
  `${owner.label ?? "a process"} on ${owner.host} (pid ${owner.pid})`

/** This process as a lease owner: a fresh id per start, with where it runs and what it is. */
export const processOwner = (label: string): LeaseOwner => ({
  id: randomUUID(),
  host: hostname(),
  pid: process.pid,
  label
})

/**
 * An owner on this machine whose process no longer exists (signal 0 finds no such process). An owner on another machine,
 * or one whose pid is alive (even if reused), is never declared dead here: its lease expires instead.
 */
const isDeadHere = (owner: LeaseOwner): Effect.Effect<boolean> => Effect.sync(() => hasEndedHere(owner.host, owner.pid))

export interface LeaseOptions {
  /** Who executes. */
  readonly owner: LeaseOwner
  /** How long the lease lives without a heartbeat (then another process may take the run over). Default 30 s. */
  readonly ttl?: Duration.DurationInput
  /** When another live owner holds the run: wait for the lease (polling) instead of failing with `RunBusy`. */
  readonly wait?: boolean
}

export interface HeldLease {
  /** Completes when the lease was lost (it expired and another owner took the run): the execution must stop. */
  readonly lost: Deferred.Deferred<void>
}

/**
 * Holds a run's lease for the scope: taken atomically (or waited for), renewed every third of its lifetime by a
 * heartbeat fiber, released when the scope closes. A renewal that finds the lease taken completes `lost`.
 */
export const holdRunLease = (
  runId: string,
  options: LeaseOptions
): Effect.Effect<HeldLease, RunBusy | RunNotFound | StoreError, RunLeases | Scope.Scope> =>
  Effect.gen(function*() {
    const leases = yield* RunLeases
    const ttl = Duration.decode(options.ttl ?? "30 seconds")
    const heartbeat = Duration.millis(Math.max(100, Duration.toMillis(ttl) / 3))
    let announced = false
    while (true) {
      const taken = yield* leases.acquire(runId, options.owner, ttl)
      if (taken._tag === "Acquired") break
      if (yield* isDeadHere(taken.owner)) {
        // killed (kill -9, a crash) on this machine: its lease would outlive it by up to `ttl`; take the run over now
        yield* Effect.logInfo(`run ${runId}: ${describeOwner(taken.owner)} is gone; taking the run over`)
        yield* leases.release(runId, taken.owner.id)
        continue
      }
      const now = yield* Clock.currentTimeMillis
      const heartbeatAgeSeconds = Math.max(0, Math.round((now - taken.heartbeatAt.getTime()) / 1000))
      const busy = new RunBusy({ runId, owner: taken.owner, heartbeatAgeSeconds })
      if (options.wait !== true) return yield* busy
      if (!announced) yield* Effect.logInfo(`waiting: ${busy.message.split(";")[0]}`)
      announced = true
      yield* Effect.sleep(heartbeat)
    }
    yield* Effect.addFinalizer(() =>
      leases.release(runId, options.owner.id).pipe(
        Effect.catchAll((e) => Effect.logWarning(`could not release the lease of run ${runId}: ${e.message}`))
      )
    )
    const lost = yield* Deferred.make<void>()
    // a store that is briefly unreachable: keep trying; the lease lives ttl, three heartbeats
    yield* beatEvery({
      interval: heartbeat,
      beat: leases.renew(runId, options.owner.id, ttl).pipe(
        Effect.catchTag("LeaseLost", (e) =>
          Effect.zipRight(
            Effect.logError(`${e.message}: stopping this execution of run ${runId}`),
            Deferred.succeed(lost, undefined)
          ))
      ),
      failure: (e) => `could not renew the lease of run ${runId}: ${e.message}`,
      recovered: `the lease of run ${runId} is renewed again`
    }).pipe(Effect.interruptible, Effect.forkScoped)
    return { lost }
  }).pipe(Effect.withSpan("RunLease.hold", { attributes: { "deepnote.run.id": runId } }))
