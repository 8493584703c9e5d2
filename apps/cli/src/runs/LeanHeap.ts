import { Effect } from "effect"
import { EventEmitter } from "node:events"
import * as V8 from "node:v8"

/** The event `bin/run-bundle.mjs` listens for (its `v8FlagsChanging`). */
export const v8FlagsChanging = "deepnote:v8-flags-changing"

/**
 * A smaller heap growth factor for the commands that stream a whole run (`eval`, `export`). They hold little (~85 MB
 * live at any run size) but make garbage fast (every result decoded, scored or written, dropped), and V8 lets its heap
 * grow to about four times what is live before a full collection: their peak RSS climbed with the run's length to
 * ~525–570 MiB at 20,000 questions. Growing by 2× instead keeps it near 345 MiB for ~7% more CPU (benchmarks/memory).
 * V8 reads this flag each time it sizes the heap, so setting it once the process runs takes effect.
 */
export const leanHeap = Effect.sync(() => {
  // the bundle's runner writes a pending code cache now: V8 would reject one made under this flag at every later start
  // that does not set it (`EventEmitter`'s `emit`: `process.emit`'s typed overloads list only Node's own events)
  EventEmitter.prototype.emit.call(process, v8FlagsChanging)
  V8.setFlagsFromString("--heap-growing-percent=100")
})
