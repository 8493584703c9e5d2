import { Effect } from "effect"
import type { Scheduler } from "./Scheduler.js"
import type { SimMetrics } from "./SimMetrics.js"
import type { SimOptions } from "./SimOptions.js"

/** One request of the background client, resolved when its last token is out (cancelled if interrupted). */
const one = (scheduler: Scheduler, metrics: SimMetrics, options: SimOptions, output: ReadonlyArray<string>) =>
  Effect.async<void>((resume) => {
    metrics.backgroundRequests++
    const seq = {
      promptTokens: options.backgroundPromptTokens,
      output,
      priority: options.backgroundPriority,
      onToken: () => {},
      onDone: () => resume(Effect.void),
      cancelled: false
    }
    scheduler.unsafeSubmit(seq)
    return Effect.sync(() => {
      seq.cancelled = true
    })
  })

/**
 * "Another client" sharing the server: `backgroundLoad` requests of its own in flight at all times, each replaced as
 * soon as it finishes, with the fixed lengths `backgroundPromptTokens` / `backgroundOutputTokens` (deterministic).
 * They are scheduled and counted like any request (tokens, running, KV, pre-emptions, successes) and, in addition,
 * in `sim:background_requests_total`. They skip the prefix cache: each is another user's prompt.
 */
export const runBackgroundLoad = (scheduler: Scheduler, metrics: SimMetrics, options: SimOptions) => {
  const output = Array.from({ length: options.backgroundOutputTokens }, (_, i) => (i === 0 ? "Busy" : " work"))
  return Effect.forEach(
    Array.from({ length: options.backgroundLoad }, (_, i) => i),
    () => Effect.forever(one(scheduler, metrics, options, output)),
    { concurrency: "unbounded", discard: true }
  )
}
