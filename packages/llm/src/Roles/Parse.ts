import { Option, Schema } from "effect"

/** Drops reasoning blocks (`<think>…</think>`), code fences and surrounding whitespace. */
export const cleanReply = (reply: string): string =>
  reply
    .replace(/<think>[\s\S]*?<\/think>/gi, "")
    .replace(/^\s*```[a-zA-Z]*\s*\n?/, "")
    .replace(/\n?```\s*$/, "")
    .trim()

const jsonSlice = (text: string, open: string, close: string): string | undefined => {
  const start = text.indexOf(open)
  const end = text.lastIndexOf(close)
  return start >= 0 && end > start ? text.slice(start, end + 1) : undefined
}

const StatusJson = Schema.parseJson(Schema.Struct({ status: Schema.Union(Schema.String, Schema.Boolean) }))
const decodeStatus = Schema.decodeUnknownOption(StatusJson)

/** The reference's judge rule: JSON sliced from the first `{` to the last `}`, else `"true" in reply.lower()`. */
export const parseJudgePaper = (reply: string): { readonly better: boolean; readonly parsed: "json" | "fallback" } => {
  const slice = jsonSlice(reply, "{", "}")
  const status = slice === undefined ? Option.none() : decodeStatus(slice)
  if (Option.isSome(status)) return { better: String(status.value.status).toLowerCase() === "true", parsed: "json" }
  return { better: reply.toLowerCase().includes("true"), parsed: "fallback" }
}

/**
 * The `deepnote` judge: one word (what structured output enforces), else the JSON contract, else a single
 * unambiguous true/false word; undefined when the reply says neither (or both).
 */
export const parseJudgeWord = (
  reply: string
): { readonly better: boolean; readonly parsed: "structured" | "json" | "fallback" } | undefined => {
  const text = cleanReply(reply)
  const word = text.replace(/^["'\s]+|["'.!\s]+$/g, "").toLowerCase()
  if (word === "true" || word === "false") return { better: word === "true", parsed: "structured" }
  const slice = jsonSlice(text, "{", "}")
  const status = slice === undefined ? Option.none() : decodeStatus(slice)
  if (Option.isSome(status)) {
    const s = String(status.value.status).toLowerCase()
    if (s === "true" || s === "false") return { better: s === "true", parsed: "json" }
  }
  const saysTrue = /\btrue\b/i.test(text)
  const saysFalse = /\bfalse\b/i.test(text)
  return saysTrue !== saysFalse ? { better: saysTrue, parsed: "fallback" } : undefined
}

/** Planner lines: numbering, bullets, "Q1:" labels and quotes removed; empty and repeated lines dropped. */
export const parseQueryLines = (reply: string): Array<string> => {
  const seen = new Set<string>()
  const out: Array<string> = []
  for (const raw of cleanReply(reply).split(/\r?\n/)) {
    const line = raw
      .replace(
        /^\s*(?:[-*•]|\d+[.)、:：]|[(（]\d+[)）]|(?:q(?:uery|uestion)?\s*\d+|查询\s*\d+|问题\s*\d+)\s*[:：.])\s*/i,
        ""
      )
      .replace(/^["“'「]+|["”'」]+$/g, "")
      .trim()
    const key = line.toLowerCase()
    if (line.length > 0 && !seen.has(key)) {
      seen.add(key)
      out.push(line)
    }
  }
  return out
}

const QueriesJson = Schema.parseJson(Schema.Struct({ queries: Schema.Array(Schema.String) }))
const QueryArrayJson = Schema.parseJson(Schema.Array(Schema.String))

/** The structured planner reply `{"queries": [...]}` (or a bare JSON array); undefined when it is not JSON. */
export const parseQueriesJson = (reply: string): Array<string> | undefined => {
  const text = cleanReply(reply)
  const object = jsonSlice(text, "{", "}")
  const decoded = object === undefined
    ? Option.none()
    : Schema.decodeUnknownOption(QueriesJson)(object).pipe(Option.map((v) => v.queries))
  const list = Option.orElse(decoded, () => {
    const array = jsonSlice(text, "[", "]")
    return array === undefined ? Option.none() : Schema.decodeUnknownOption(QueryArrayJson)(array)
  })
  return Option.isNone(list) ? undefined : list.value.map((q) => q.trim()).filter((q) => q.length > 0)
}

/** A short answer: the first non-empty line, without an "Answer:" label or wrapping quotes. */
export const parseShortAnswer = (reply: string): string => {
  const first = cleanReply(reply).split(/\r?\n/).map((l) => l.trim()).find((l) => l.length > 0) ?? ""
  return first.replace(/^(?:final answer|answer|答案)\s*[:：]\s*/i, "").replace(/^["“'「]+|["”'」]+$/g, "").trim()
}

/** "yes"/"no" from an English or Chinese reply; undefined when it says neither or both. */
export const parseYesNo = (reply: string): "yes" | "no" | undefined => {
  const text = cleanReply(reply).toLowerCase()
  const yes = /\byes\b/.test(text) || /^(?:是|对|正确)/.test(text)
  const no = /\bno\b/.test(text) || /^(?:否|不是|不|错)/.test(text)
  return yes === no ? undefined : yes ? "yes" : "no"
}
