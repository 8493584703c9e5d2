// Counts and times the Effect run-loop's steps ("ops") of a process by the span they run in, and prints the totals to
// stderr at exit. A diagnostic for benchmarks/cpu (which operations the Effect runtime's share of a run belongs to),
// loaded before the command; run the unbundled build so the module below is the one the command imports:
//
//   node --import ./benchmarks/cpu/effect-ops.mjs apps/cli/dist/src/main.js run …
//
// A loader hook adds two lines to `effect/dist/esm/internal/fiberRuntime.js` as this process loads it (the file on disk
// is not changed): each step of a fiber's run loop is counted under "span < parent span" of the fiber's current span,
// with the time of its synchronous work (the SQLite statement, the schema step, the JSON parse inside it). Steps that
// run outside any span are "(no span)". The timer adds ≈ 0.1 µs per step, so compare shares, not totals.
import { register } from "node:module"

const stats = new Map()
globalThis.__deepnoteEffectOps = (span, ms) => {
  const key = span === undefined
    ? "(no span)"
    : `${span.name} < ${span.parent?._tag === "Some" ? (span.parent.value.name ?? "(external)") : "-"}`
  const entry = stats.get(key)
  if (entry === undefined) stats.set(key, { steps: 1, ms })
  else {
    entry.steps += 1
    entry.ms += ms
  }
}

const hook = `
const before = "      try {\\n        // @ts-expect-error\\n        cur = this.currentTracer.context(() => {"
const after = "        }, this);\\n        if (cur === YieldedOp) {"
export async function load(url, context, next) {
  const loaded = await next(url, context)
  if (!url.endsWith("/effect/dist/esm/internal/fiberRuntime.js")) return loaded
  const source = String(loaded.source)
  if (!source.includes(before) || !source.includes(after)) throw new Error("effect-ops: this effect version's run loop differs")
  return {
    ...loaded,
    shortCircuit: true,
    source: source
      .replace(before, "      const opSpan = this.currentSpan, opStart = performance.now()\\n" + before)
      .replace(after, "        }, this);\\n        globalThis.__deepnoteEffectOps(opSpan, performance.now() - opStart)\\n        if (cur === YieldedOp) {")
  }
}`
register(`data:text/javascript,${encodeURIComponent(hook)}`, import.meta.url)

process.on("exit", () => {
  let steps = 0
  let ms = 0
  for (const entry of stats.values()) {
    steps += entry.steps
    ms += entry.ms
  }
  if (steps === 0) {
    process.stderr.write("effect-ops: no step counted (a bundled build does not load effect from node_modules)\n")
    return
  }
  const lines = [
    `Effect run-loop steps: ${steps} in all, ${ms.toFixed(0)} ms of synchronous work in them`,
    "    steps  steps %       ms   ms %  span < parent span"
  ]
  for (const [key, entry] of [...stats].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25)) {
    lines.push(
      `${String(entry.steps).padStart(9)} ${(100 * entry.steps / steps).toFixed(1).padStart(8)} ${
        entry.ms.toFixed(0).padStart(8)
      } ${(100 * entry.ms / ms).toFixed(1).padStart(6)}  ${key}`
    )
  }
  process.stderr.write(lines.join("\n") + "\n")
})
