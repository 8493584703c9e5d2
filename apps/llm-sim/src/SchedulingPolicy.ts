import type { SchedulingPolicyName } from "./SimOptions.js"

/** What a policy reads of a request: its priority (lower first) and its arrival order. */
export interface Ranked {
  readonly priority: number
  /** Arrival number: ties between equal priorities go to the earlier arrival, as in vLLM. */
  readonly order: number
}

/** How vLLM's `--scheduling-policy` orders the waiting queue and picks whom to pre-empt. */
export interface SchedulingPolicy {
  readonly name: SchedulingPolicyName
  /** Puts a request in the waiting queue: a new arrival, or a pre-empted request going back. */
  readonly enqueue: <A extends Ranked>(waiting: Array<A>, request: A, preempted: boolean) => void
  /** The running request to pre-empt when KV blocks run out. */
  readonly victim: <A extends Ranked>(running: ReadonlyArray<A>) => A | undefined
  /** Whether the waiting queue's head may displace the victim when the batch is full or its prompt does not fit. */
  readonly displaces: (head: Ranked, victim: Ranked) => boolean
}

/**
 * First come, first served (vLLM's default): arrivals queue at the back, a pre-empted request goes back to the front,
 * and the victim is the most recently admitted running request. `priority` is ignored.
 */
export const fcfs: SchedulingPolicy = {
  name: "fcfs",
  enqueue: (waiting, request, preempted) => {
    if (preempted) waiting.unshift(request)
    else waiting.push(request)
  },
  victim: (running) => running[running.length - 1],
  displaces: () => false
}

const before = (a: Ranked, b: Ranked) => a.priority < b.priority || (a.priority === b.priority && a.order < b.order)

/**
 * Priority (vLLM `--scheduling-policy priority`): the waiting queue is ordered by (priority, arrival), lower first,
 * pre-empted requests included (they keep their arrival); the victim is the running request with the worst
 * (priority, arrival). A waiting request of strictly better priority displaces it when the batch is full or its
 * prompt does not fit; equal priorities never displace each other (no ping-pong).
 */
export const priority: SchedulingPolicy = {
  name: "priority",
  enqueue: (waiting, request) => {
    let lo = 0
    let hi = waiting.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (before(waiting[mid]!, request)) lo = mid + 1
      else hi = mid
    }
    waiting.splice(lo, 0, request)
  },
  victim: (running) => {
    let worst = running[0]
    for (const r of running) if (worst !== undefined && before(worst, r)) worst = r
    return worst
  },
  displaces: (head, victim) => head.priority < victim.priority
}

export const policyNamed = (name: SchedulingPolicyName): SchedulingPolicy => (name === "priority" ? priority : fcfs)
