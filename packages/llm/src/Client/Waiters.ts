import { Deferred, Exit } from "effect"
import type { LlmUnavailable } from "../Domain/LlmError.js"
import { choose, type EndpointState, type Route } from "./Endpoint.js"

/** A call waiting for a slot. */
export interface Waiter {
  readonly route: Route
  readonly deferred: Deferred.Deferred<EndpointState, LlmUnavailable>
  /** Outage wait allowed before it fails (ms). */
  readonly budgetMs: number
  /** Time waited while no endpoint serving its model was up (ms). */
  outageWaitedMs: number
  served: EndpointState | undefined
}

/**
 * The calls waiting for a slot, served in (priority, arrival) order as slots free — an interactive call does not wait
 * behind a batch backlog in this process, as it does not on a server scheduling by priority. A waiter whose model no free endpoint serves
 * is skipped, so it does not hold up the others; the scan stops as soon as no endpoint has a free slot (the common
 * case when every endpoint is busy), which keeps a release O(1) under load.
 */
export class Waiters {
  private readonly queue: Array<Waiter> = []

  constructor(private readonly endpoints: ReadonlyArray<EndpointState>) {}

  get size(): number {
    return this.queue.length
  }

  add(w: Waiter): void {
    // from the back: the common case (a call no more urgent than the last) is O(1)
    const p = w.route.priority ?? 0
    let i = this.queue.length
    while (i > 0 && (this.queue[i - 1]!.route.priority ?? 0) > p) i--
    this.queue.splice(i, 0, w)
  }

  remove(w: Waiter): void {
    const i = this.queue.indexOf(w)
    if (i >= 0) this.queue.splice(i, 1)
  }

  dispatch(now: number): void {
    let i = 0
    while (i < this.queue.length && this.endpoints.some((e) => e.available(now))) {
      const w = this.queue[i]!
      const e = choose(this.endpoints, w.route, now)
      if (e === undefined) {
        i++
        continue
      }
      this.queue.splice(i, 1)
      e.inFlight++
      w.served = e
      Deferred.unsafeDone(w.deferred, Exit.succeed(e))
    }
  }

  /**
   * Adds `elapsedMs` of outage wait to every waiter none of whose endpoints is up, and fails those past their budget
   * with `unavailable(waiter)`.
   */
  age(elapsedMs: number, unavailable: (w: Waiter) => LlmUnavailable): void {
    for (const w of [...this.queue]) {
      const model = w.route.model
      if (this.endpoints.some((e) => e.serves(model) && e.condition === "up")) continue
      w.outageWaitedMs += elapsedMs
      if (w.outageWaitedMs >= w.budgetMs) {
        this.remove(w)
        Deferred.unsafeDone(w.deferred, Exit.fail(unavailable(w)))
      }
    }
  }
}
