import type { RunEvent } from "../Executor/RunEvents.js"

/** Counters a progress display shows, folded from run events. */
export interface ProgressState {
  readonly total: number
  readonly alreadyDone: number
  readonly done: number
  readonly failed: number
  /**
   * The items started and not yet finished. A set, not a count: an item is started again when its execution is
   * repeated (a store outage ridden out), and must not count twice.
   */
  readonly inFlight: ReadonlySet<string>
  readonly llmCalls: number
  readonly startedAt: number
}

export const initialProgress = (total: number, alreadyDone: number, now: number): ProgressState => ({
  total,
  alreadyDone,
  done: 0,
  failed: 0,
  inFlight: new Set(),
  llmCalls: 0,
  startedAt: now
})

const withItem = (items: ReadonlySet<string>, itemId: string): ReadonlySet<string> =>
  items.has(itemId) ? items : new Set(items).add(itemId)

const withoutItem = (items: ReadonlySet<string>, itemId: string): ReadonlySet<string> => {
  if (!items.has(itemId)) return items
  const rest = new Set(items)
  rest.delete(itemId)
  return rest
}

export const foldProgress = (state: ProgressState, event: RunEvent): ProgressState => {
  switch (event._tag) {
    case "ItemStarted":
      return { ...state, inFlight: withItem(state.inFlight, event.itemId) }
    case "ItemDone":
      return {
        ...state,
        inFlight: withoutItem(state.inFlight, event.itemId),
        done: state.done + 1,
        llmCalls: state.llmCalls + event.llmCalls
      }
    case "ItemFailed":
      return { ...state, inFlight: withoutItem(state.inFlight, event.itemId), failed: state.failed + 1 }
    default:
      return state
  }
}

const duration = (seconds: number) =>
  !Number.isFinite(seconds)
    ? "?"
    : seconds < 90
    ? `${Math.round(seconds)} s`
    : seconds < 5400
    ? `${Math.round(seconds / 60)} min`
    : `${(seconds / 3600).toFixed(1)} h`

/** One line: bar, done/failed/in-flight, questions/s, calls, tokens, ETA. */
export const renderProgress = (
  runId: string,
  s: ProgressState,
  now: number,
  tokens: number | undefined,
  width = 24
): string => {
  const finished = s.alreadyDone + s.done + s.failed
  const fraction = s.total === 0 ? 1 : finished / s.total
  const filled = Math.round(fraction * width)
  const elapsed = Math.max(0.001, (now - s.startedAt) / 1000)
  const rate = (s.done + s.failed) / elapsed
  const eta = rate > 0 ? (s.total - finished) / rate : Number.POSITIVE_INFINITY
  return `${runId} ▕${"█".repeat(filled)}${
    "░".repeat(width - filled)
  }▏ ${finished}/${s.total} · ${s.failed} failed · ${s.inFlight.size} in flight · ` +
    `${rate.toFixed(2)} q/s · ${s.llmCalls} LLM calls${
      tokens === undefined ? "" : ` · ${tokens.toLocaleString("en")} tokens`
    } · ETA ${finished >= s.total ? "0 s" : duration(eta)}`
}
