import { Effect } from "effect"

/**
 * The client's global in-flight limit: a counting semaphore whose free permit is taken synchronously. Effect's
 * `Semaphore.withPermits` costs ≈ 30 run-loop steps per call (its own interruptible mask, finalizer and release);
 * here taking and releasing are folded into the attempt's mask and finalizer (benchmarks/llm/client-cpu.mjs).
 * Waiters are served in arrival order; a waiter interrupted while waiting leaves the queue (and gives back a permit
 * handed to it in the same instant).
 */
export class Gate {
  private free: number
  private readonly waiting = new Set<() => void>()

  constructor(permits: number) {
    this.free = permits
  }

  /** One permit, waiting (interruptibly) while none is free; give it back with `release`. */
  readonly take: Effect.Effect<void> = Effect.suspend(() => {
    if (this.free > 0) {
      this.free--
      return Effect.void
    }
    return Effect.async<void>((resume) => {
      let granted = false
      const served = () => {
        granted = true
        this.free--
        resume(Effect.void)
      }
      this.waiting.add(served)
      // interrupted while waiting: leave the queue; interrupted as the permit was handed over: give it back
      return Effect.sync(() => {
        if (granted) this.release()
        else this.waiting.delete(served)
      })
    })
  })

  release(): void {
    this.free++
    for (const next of this.waiting) {
      this.waiting.delete(next)
      next()
      return
    }
  }
}
