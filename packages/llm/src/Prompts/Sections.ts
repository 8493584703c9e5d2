import type { Language } from "@deepnote-rag/core"
import { Option, Schema } from "effect"
import type { ChatMessage } from "../Domain/Chat.js"

/**
 * The prompt format shared by the prompt builders and the simulator's parser: each input is a section that starts
 * with a stable `### <Heading>` line (English or Chinese headings); passages are numbered `[n] Title: …` (`[n] 标题：…`)
 * followed by their text; queries are a numbered list.
 */
export type SectionKey =
  | "question"
  | "note"
  | "bestNote"
  | "newNote"
  | "passages"
  | "queries"
  | "candidates"
  | "task"

export const headings: Record<Language, Record<SectionKey, string>> = {
  en: {
    question: "Question",
    note: "Note",
    bestNote: "Note 1 (current best)",
    newNote: "Note 2 (candidate)",
    passages: "Passages",
    queries: "Queries already asked",
    candidates: "Candidates",
    task: "Task"
  },
  zh: {
    question: "问题",
    note: "笔记",
    bestNote: "笔记 1（当前最佳）",
    newNote: "笔记 2（候选）",
    passages: "参考段落",
    queries: "已经提出的查询",
    candidates: "候选",
    task: "任务"
  }
}

const titleLabel: Record<Language, string> = { en: "Title: ", zh: "标题：" }
const noneLabel: Record<Language, string> = { en: "(none)", zh: "（无）" }

export interface PromptPassage {
  readonly title: string
  readonly text: string
}

/** A prompt's messages: the system message (the role's instructions or the shared one, see `Layout.ts`), then the sections. */
export const messages = (system: string, ...sections: ReadonlyArray<string>): Array<ChatMessage> => [
  { role: "system", content: system },
  { role: "user", content: sections.join("\n") }
]

export const section = (language: Language, key: SectionKey, body: string): string =>
  `### ${headings[language][key]}\n${body.trim()}\n`

export const renderPassages = (language: Language, passages: ReadonlyArray<PromptPassage>): string =>
  passages.length === 0
    ? noneLabel[language]
    : passages.map((p, i) => `[${i + 1}] ${titleLabel[language]}${p.title}\n${p.text.trim()}`).join("\n\n")

export const renderQueries = (language: Language, queries: ReadonlyArray<string>): string =>
  queries.length === 0
    ? noneLabel[language]
    : queries.map((q, i) => `${i + 1}. ${q.replace(/\s*\n\s*/g, " ").trim()}`).join("\n")

/** A candidate a judge ranks (DNAlign): its id and its text. */
export interface PromptCandidate {
  readonly id: number
  readonly content: string
}

/** Candidates as the reference's judge prompts list them: a JSON array of `{"_id", "content"}`, one per line. */
export const renderCandidates = (candidates: ReadonlyArray<PromptCandidate>): string =>
  `[\n${candidates.map((c) => JSON.stringify({ _id: c.id, content: c.content })).join(",\n")}\n]`

// == parsing (used by the simulator, and by tests to check the layout)

export interface ParsedPrompt {
  readonly language: Language | undefined
  readonly question?: string
  readonly note?: string
  readonly bestNote?: string
  readonly newNote?: string
  readonly passages?: ReadonlyArray<PromptPassage>
  readonly queries?: ReadonlyArray<string>
  readonly candidates?: ReadonlyArray<PromptCandidate>
  /** The role's instructions when they follow the shared head (`shared-prefix` layout). */
  readonly task?: string
}

const byHeading = new Map<string, { readonly key: SectionKey; readonly language: Language }>()
for (const language of ["en", "zh"] as const) {
  for (const [key, heading] of Object.entries(headings[language])) {
    byHeading.set(heading, { key: key as SectionKey, language })
  }
}

const isNone = (body: string) => body === noneLabel.en || body === noneLabel.zh

const parsePassages = (body: string): Array<PromptPassage> => {
  if (isNone(body)) return []
  const out: Array<PromptPassage> = []
  for (const block of body.split(/\n(?=\[\d+\] )/)) {
    const m = /^\[\d+\] (?:Title: |标题：)?([^\n]*)\n?([\s\S]*)$/.exec(block.trim())
    if (m) out.push({ title: m[1]!.trim(), text: m[2]!.trim() })
  }
  return out
}

const CandidateList = Schema.parseJson(Schema.Array(Schema.Struct({ _id: Schema.Int, content: Schema.String })))

const parseCandidates = (body: string): Array<PromptCandidate> =>
  Option.match(Schema.decodeUnknownOption(CandidateList)(body), {
    onNone: () => [],
    onSome: (list) => list.map((c) => ({ id: c._id, content: c.content }))
  })

const parseQueries = (body: string): Array<string> =>
  isNone(body) ? [] : body.split("\n").map((l) => l.replace(/^\s*\d+[.)]\s*/, "").trim()).filter((l) => l.length > 0)

/** Reads the sections back out of a prompt (all messages joined, or a raw completion prompt). Unknown headings are text. */
export const parsePrompt = (text: string): ParsedPrompt => {
  const bodies = new Map<SectionKey, Array<string>>()
  let current: Array<string> | undefined
  let language: Language | undefined
  for (const line of text.split("\n")) {
    const heading = line.startsWith("### ") ? byHeading.get(line.slice(4).trim()) : undefined
    if (heading !== undefined) {
      current = []
      bodies.set(heading.key, current)
      language ??= heading.language
    } else if (current !== undefined && !/^<\|[^|]*\|>/.test(line)) {
      current.push(line)
    }
  }
  const get = (key: SectionKey) => {
    const lines = bodies.get(key)
    return lines === undefined ? undefined : lines.join("\n").trim()
  }
  const out: { -readonly [K in keyof ParsedPrompt]: ParsedPrompt[K] } = { language }
  for (const key of ["question", "note", "bestNote", "newNote", "task"] as const) {
    const v = get(key)
    if (v !== undefined) out[key] = v
  }
  // the shared-prefix layout gives every role the current best note under one heading: alone, it is the note
  if (out.note === undefined && out.bestNote !== undefined && out.newNote === undefined) out.note = out.bestNote
  const passages = get("passages")
  if (passages !== undefined) out.passages = parsePassages(passages)
  const queries = get("queries")
  if (queries !== undefined) out.queries = parseQueries(queries)
  const candidates = get("candidates")
  if (candidates !== undefined) out.candidates = parseCandidates(candidates)
  return out
}
