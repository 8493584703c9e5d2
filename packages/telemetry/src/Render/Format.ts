/** `0.42 ms`, `12.3 ms`, `870 ms`, `2.41 s`, `3 min 5 s`. */
export const formatDuration = (ms: number): string =>
  ms < 1 ?
    `${ms.toFixed(2)} ms`
    : ms < 100 ?
    `${ms.toFixed(1)} ms`
    : ms < 1000 ?
    `${Math.round(ms)} ms`
    : ms < 60_000 ?
    `${(ms / 1000).toFixed(2)} s`
    : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`

/** A bar of `width` cells with `█` from `from` to `to` (fractions of the whole, 0–1); at least one cell is drawn. */
export const timelineBar = (from: number, to: number, width: number): string => {
  const clamp = (x: number) => Math.min(Math.max(x, 0), 1)
  const start = Math.min(Math.floor(clamp(from) * width), width - 1)
  const end = Math.max(Math.ceil(clamp(to) * width), start + 1)
  return "·".repeat(start) + "█".repeat(end - start) + "·".repeat(Math.max(width - end, 0))
}

export const truncate = (
  text: string,
  max: number
): string => (text.length <= max ? text : `${text.slice(0, Math.max(max - 1, 0))}…`)

export const padLeft = (text: string, width: number): string => text.padStart(width)
export const padRight = (text: string, width: number): string => text.padEnd(width)
