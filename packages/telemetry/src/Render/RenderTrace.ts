import type { SpanRecord } from "../TraceFile/SpanRecord.js"
import { formatDuration, padLeft, padRight, timelineBar, truncate } from "./Format.js"
import { descendants, type SpanNode } from "./TraceTree.js"

export interface RenderOptions {
  /** Cells of the timeline bar. Default 32. */
  readonly width?: number
  /** Show recorded prompt and completion text (only present when the run had `--trace-content`). */
  readonly content?: boolean
}

/** Attributes worth a glance, in display order, with their short labels. */
const shown: ReadonlyArray<readonly [string, string]> = [
  ["deepnote.step", "step"],
  ["deepnote.verdict", "verdict"],
  ["deepnote.stop_reason", "stop"],
  ["deepnote.steps", "steps"],
  ["deepnote.role", "role"],
  ["gen_ai.request.model", "model"],
  ["deepnote.llm.attempts", "attempts"],
  ["deepnote.llm.attempt", "attempt"],
  ["server.address", "endpoint"],
  ["http.response.status_code", "status"],
  ["deepnote.llm.error", "error"],
  ["deepnote.llm.retry.reason", "retry"],
  ["deepnote.llm.retry.backoff_ms", "backoff_ms"],
  ["gen_ai.usage.input_tokens", "in"],
  ["gen_ai.usage.output_tokens", "out"],
  ["deepnote.llm.cached", "cached"],
  ["deepnote.retrieval.returned", "passages"],
  ["deepnote.passages", "passages"]
]

const attr = (span: SpanRecord, key: string): string | undefined => {
  const value = span.attributes[key]
  return value === undefined ? undefined : Array.isArray(value) ? value.join(",") : String(value)
}

/** `key=value` labels of a span, leaving out values its parent already shows and `cached=false`. */
const labels = (span: SpanRecord, parent: SpanRecord | undefined): string =>
  shown.flatMap(([key, label]) => {
    const value = attr(span, key)
    if (value === undefined || (key === "deepnote.llm.cached" && value === "false")) return []
    if (key === "deepnote.step" && span.name !== "deepnote.step") return []
    if (parent !== undefined && attr(parent, key) === value) return []
    return [`${label}=${value}`]
  }).join(" ")

const statusMark = (span: SpanRecord): string =>
  span.status === "error"
    ? ` ✗ ${truncate(span.statusMessage ?? "failed", 160)}`
    : span.status === "interrupted"
    ? " ⊘ interrupted"
    : ""

const eventLabel = (name: string, attributes: SpanRecord["attributes"]): string => {
  const level = attributes["effect.logLevel"]
  return `${level === undefined ? "" : `${String(level).toLowerCase()}: `}${truncate(name.replace(/\s+/g, " "), 160)}`
}

const header = (root: SpanNode, orphan: boolean): string => {
  const s = root.span
  const item = attr(s, "deepnote.item.id") ??
    descendants(root).map((n) => attr(n.span, "deepnote.item.id")).find((x) => x !== undefined) ?? "?"
  const run = attr(s, "deepnote.run.id")
  const started = new Date(Number(s.startTimeUnixNano / 1_000_000n)).toISOString()
  return [
    `question ${item}`,
    ...(run === undefined ? [] : [`run ${run}`]),
    orphan ? "incomplete (the question span was not recorded)" : s.status,
    formatDuration(s.durationMs),
    `started ${started}`,
    `trace ${s.traceId}`
  ].join(" · ")
}

/** A question's span tree as an indented timeline: offset, duration, bar, name and key attributes per span. */
export const renderQuestion = (root: SpanNode, options: RenderOptions = {}): string => {
  const width = options.width ?? 32
  const all = descendants(root)
  const t0 = all.reduce(
    (min, n) => (n.span.startTimeUnixNano < min ? n.span.startTimeUnixNano : min),
    root.span.startTimeUnixNano
  )
  const t1 = all.reduce(
    (max, n) => (n.span.endTimeUnixNano > max ? n.span.endTimeUnixNano : max),
    root.span.endTimeUnixNano
  )
  const total = Math.max(Number(t1 - t0), 1)
  const ms = (t: bigint) => Number(t - t0) / 1e6
  const lines = [
    header(root, root.span.name !== "deepnote.question"),
    `${padLeft("offset", 11)} ${padLeft("duration", 10)}  ${padRight("timeline", width)}  span`
  ]
  const walk = (node: SpanNode, depth: number, parent: SpanRecord | undefined) => {
    const s = node.span
    const bar = timelineBar(Number(s.startTimeUnixNano - t0) / total, Number(s.endTimeUnixNano - t0) / total, width)
    const label = labels(s, parent)
    lines.push(
      `${padLeft(`+${formatDuration(ms(s.startTimeUnixNano))}`, 11)} ${
        padLeft(formatDuration(s.durationMs), 10)
      }  ${bar}  ${"  ".repeat(depth)}${s.name}${label === "" ? "" : `  ${label}`}${statusMark(s)}`
    )
    const indent = `${" ".repeat(11 + 1 + 10 + 2 + width + 2)}${"  ".repeat(depth + 1)}`
    for (const event of s.events) lines.push(`${indent}• ${eventLabel(event.name, event.attributes)}`)
    if (options.content === true) {
      for (
        const [key, label] of [["gen_ai.input.messages", "prompt"], ["gen_ai.output.messages", "completion"]] as const
      ) {
        const text = attr(s, key)
        if (text !== undefined) lines.push(`${indent}${label}: ${truncate(text.replace(/\s+/g, " "), 240)}`)
      }
    }
    for (const child of node.children) walk(child, depth + 1, s)
  }
  walk(root, 0, undefined)
  return lines.join("\n")
}

const count = (root: SpanNode, name: (n: string) => boolean) =>
  descendants(root).filter((n) => name(n.span.name)).length
const isCall = (name: string) => name === "LlmClient.chat" || name === "LlmClient.complete"
/** Token totals come from call spans only (attempt spans repeat them). */
const sum = (root: SpanNode, key: string) =>
  descendants(root).reduce(
    (acc, n) =>
      acc + (isCall(n.span.name) && typeof n.span.attributes[key] === "number" ? Number(n.span.attributes[key]) : 0),
    0
  )

/** One line per question (status, latency, steps, stop reason, LLM calls and attempts, tokens), and one per run execution. */
export const renderSummary = (questions: ReadonlyArray<SpanNode>, runs: ReadonlyArray<SpanNode>): string => {
  const lines: Array<string> = []
  for (const run of runs) {
    const s = run.span
    lines.push(
      `run ${attr(s, "deepnote.run.id") ?? "?"} execution · ${s.status} · ${formatDuration(s.durationMs)} · started ${
        new Date(Number(s.startTimeUnixNano / 1_000_000n)).toISOString()
      } · trace ${s.traceId}`
    )
  }
  const rows = questions.map((q) => {
    const s = q.span
    const llmCalls = count(q, isCall)
    return [
      attr(s, "deepnote.item.id") ?? descendants(q).map((n) =>
        attr(n.span, "deepnote.item.id")
      ).find((x) => x !== undefined) ?? "?",
      s.name === "deepnote.question" ? s.status : "incomplete",
      formatDuration(s.durationMs),
      attr(s, "deepnote.steps") ?? "",
      attr(s, "deepnote.stop_reason") ?? "",
      String(llmCalls),
      String(count(q, (n) => n === "LlmClient.attempt")),
      `${sum(q, "gen_ai.usage.input_tokens") > 0 ? sum(q, "gen_ai.usage.input_tokens") : ""}`,
      `${sum(q, "gen_ai.usage.output_tokens") > 0 ? sum(q, "gen_ai.usage.output_tokens") : ""}`
    ]
  })
  const head = ["item", "status", "duration", "steps", "stop", "llm calls", "attempts", "tokens in", "tokens out"]
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const format = (r: ReadonlyArray<string>) =>
    r.map((c, i) => (i >= 2 && i !== 4 ? padLeft(c, widths[i]!) : padRight(c, widths[i]!))).join("  ").trimEnd()
  if (lines.length > 0) lines.push("")
  lines.push(format(head), ...rows.map(format))
  return lines.join("\n")
}
