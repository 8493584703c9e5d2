/**
 * `Retry-After` as milliseconds: delta-seconds ("2", "0.5") or an HTTP date; undefined when absent or unreadable.
 * A date in the past means "now" (0).
 */
export const parseRetryAfter = (value: string | undefined, nowMs: number): number | undefined => {
  if (value === undefined) return undefined
  const trimmed = value.trim()
  if (trimmed.length === 0) return undefined
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000)
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs)
}

/**
 * The pause before retry number `retry` (1-based): exponential from `baseMs`, "full jitter" between half and all of it,
 * capped at `maxMs`. A server's `Retry-After` wins when it is longer (capped at two minutes, so a hostile header
 * cannot park a run).
 */
const maxRetryAfterMs = 120_000

export const backoffMs = (
  retry: number,
  options: { readonly baseMs: number; readonly maxMs: number; readonly retryAfterMs?: number | undefined },
  random: number
): number => {
  const exp = Math.min(options.maxMs, options.baseMs * 2 ** (retry - 1))
  const jittered = Math.round(exp * (0.5 + random / 2))
  return options.retryAfterMs === undefined
    ? jittered
    : Math.max(jittered, Math.min(options.retryAfterMs, maxRetryAfterMs))
}
