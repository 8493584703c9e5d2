import { h } from "./Dom.js"

/** A percentage the report already scaled (×100): `63.2`. */
export const pct = (value: number | undefined): string => value === undefined ? "–" : value.toFixed(1)

/** A 0–1 score as a percentage. */
export const score = (value: number | undefined): string => value === undefined ? "–" : (value * 100).toFixed(1)

/** A signed difference in points. */
export const signed = (value: number): string => `${value > 0 ? "+" : ""}${value.toFixed(1)}`

export const num = (value: number | undefined, digits = 1): string =>
  value === undefined ? "–" : Number.isInteger(value) ? String(value) : value.toFixed(digits)

/** Milliseconds as `850 ms`, `12.3 s` or `4 min 05 s`. */
export const duration = (ms: number | undefined): string => {
  if (ms === undefined) return "–"
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const s = Math.round(ms / 1000)
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`
}

/** An ISO date as local `YYYY-MM-DD HH:MM`. */
export const when = (iso: string | undefined): string => {
  if (iso === undefined) return "–"
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  const p = (n: number) => String(n).padStart(2, "0")
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`
}

/** A short hash for display (the full one in the title). */
export const shortHash = (hash: string): HTMLElement => h("code", { title: hash }, hash.slice(0, 12))

/** A run's or item's state as a coloured badge. */
export const badge = (state: string): HTMLElement =>
  h("span", { class: `badge badge-${state}` }, state.replace(/_/gu, " "))

/** A progress bar over done + failed of total. */
export const progress = (done: number, failed: number, total: number): HTMLElement => {
  const finished = done + failed
  const share = total === 0 ? 0 : Math.min(100, Math.round((finished / total) * 100))
  // through the CSSOM: the pages' Content-Security-Policy refuses inline style attributes
  const bar = h("span", { class: "progress-bar" })
  bar.style.width = `${share}%`
  return h(
    "span",
    { class: "progress", title: `${done} done, ${failed} failed of ${total}` },
    bar,
    h("span", { class: "progress-label" }, `${finished}/${total}`)
  )
}

/** Any JSON value as compact text (knob values, sweep cells). */
export const show = (value: unknown): string =>
  typeof value === "string" ? value : value === undefined ? "–" : JSON.stringify(value)
