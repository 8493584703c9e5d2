import type { ParsedPrompt, PromptCandidate, PromptPassage } from "@deepnote-rag/llm"
import { type Draw, jitter, nudgeOrder } from "./Sampling.js"

export type SimEvidence =
  | { readonly _tag: "Note"; readonly text: string }
  | { readonly _tag: "Passages"; readonly passages: ReadonlyArray<PromptPassage> }
  | { readonly _tag: "None" }

/**
 * What produces the text of each role. The extractive engine is the default; `lite` is for load tests. With a `draw`
 * (temperature > 0) a role perturbs its choices with it; without one it is exact.
 */
export interface ContentEngine {
  readonly name: string
  readonly init: (question: string, passages: ReadonlyArray<PromptPassage>, draw?: Draw) => string
  readonly update: (question: string, note: string, passages: ReadonlyArray<PromptPassage>, draw?: Draw) => string
  readonly plan: (
    question: string,
    note: string,
    queries: ReadonlyArray<string>,
    count: number,
    draw?: Draw
  ) => ReadonlyArray<string>
  readonly judge: (question: string, best: string, candidate: string, draw?: Draw) => boolean
  readonly answer: (question: string, evidence: SimEvidence, draw?: Draw) => string
  /**
   * A group judge (DNAlign): the ids of the best and the worst candidate, for a group of notes written from
   * `passages`, or of query sets asked from `note` after `queries`.
   */
  readonly rank: (question: string, group: RankGroup) => { readonly best: number; readonly worst: number }
}

/** What a group judge sees: the candidates, and the passages (notes) or the note and the query log (query sets). */
export type RankGroup =
  | {
    readonly _tag: "Notes"
    readonly passages: ReadonlyArray<PromptPassage>
    readonly candidates: ReadonlyArray<PromptCandidate>
  }
  | {
    readonly _tag: "Queries"
    readonly note: string
    readonly queries: ReadonlyArray<string>
    readonly candidates: ReadonlyArray<PromptCandidate>
  }

/** A structured-output constraint as the request carried it. */
export interface SimStructured {
  readonly choice?: ReadonlyArray<string> | undefined
  readonly json?: unknown
}

export interface RoleInput {
  readonly role: string | undefined
  /** The instructions (system message), used to read the reply format the prompt asks for. */
  readonly system: string
  readonly prompt: ParsedPrompt
  readonly structured: SimStructured | undefined
  /** The sampling draw (temperature > 0), if any. */
  readonly draw?: Draw | undefined
}

/** The role a request plays: its `x-deepnote-role` header, else what the prompt's sections say. */
export const roleOf = (header: string | undefined, p: ParsedPrompt): string => header ?? inferRole(p)

const inferRole = (p: ParsedPrompt): string =>
  p.bestNote !== undefined && p.newNote !== undefined ?
    "judge"
    : p.queries !== undefined ?
    "plan"
    : p.note !== undefined && p.passages !== undefined ?
    "update"
    : p.passages !== undefined ?
    "init"
    : "answer"

const wantedCount = (input: RoleInput): number => {
  const json = input.structured?.json
  if (typeof json === "object" && json !== null) {
    const min = /"minItems":\s*(\d+)/.exec(JSON.stringify(json))
    if (min) return Number(min[1])
  }
  const inText = /(\d+)/.exec(input.system)
  return inText ? Number(inText[1]) : 2
}

const pick = (choices: ReadonlyArray<string>, yes: boolean): string =>
  (yes ? choices[0] : choices[choices.length > 1 ? 1 : 0]) ?? ""

const yesLike = (text: string) => /^\s*(?:yes|true|是|对)/i.test(text)

/** Turns a role's output into the reply text in the format the prompt (or the structured constraint) asks for. */
export const respond = (engine: ContentEngine, input: RoleInput): string => {
  const p = input.prompt
  const question = p.question ?? ""
  const zh = p.language === "zh"
  const draw = input.draw
  const candidates = p.candidates ?? []
  if (candidates.length > 0) {
    const group: RankGroup = p.queries !== undefined
      ? { _tag: "Queries", note: p.note ?? "", queries: p.queries, candidates }
      : { _tag: "Notes", passages: p.passages ?? [], candidates }
    const { best, worst } = engine.rank(question, group)
    const id = (i: number) => (candidates[i] ?? candidates[0]!).id
    return JSON.stringify({ best_id: id(best), worst_id: id(worst) })
  }
  switch (roleOf(input.role, p)) {
    case "init":
      return engine.init(question, p.passages ?? [], draw) ||
        (zh ? "参考段落中没有找到相关信息。" : "The passages hold no relevant information.")
    case "update":
      return engine.update(question, p.note ?? "", p.passages ?? [], draw) || (p.note ?? "")
    case "plan": {
      const queries = engine.plan(question, p.note ?? "", p.queries ?? [], wantedCount(input), draw)
      const json = input.structured?.json !== undefined || input.system.includes(`{"queries"`)
      return json ? JSON.stringify({ queries }) : queries.join("\n")
    }
    case "judge": {
      const better = engine.judge(question, p.bestNote ?? "", p.newNote ?? "", draw)
      if (input.structured?.choice) return pick(input.structured.choice, better)
      return input.system.includes(`{"status"`)
        ? `{"status": "${better ? "True" : "False"}"}`
        : better
        ? "True"
        : "False"
    }
    default: {
      const evidence: SimEvidence = p.note !== undefined ?
        { _tag: "Note", text: p.note }
        : p.passages !== undefined ?
        { _tag: "Passages", passages: p.passages }
        : { _tag: "None" }
      const answer = engine.answer(question, evidence, draw)
      return input.structured?.choice ? pick(input.structured.choice, yesLike(answer)) : answer
    }
  }
}

const sentences = (text: string): Array<string> =>
  text.split(/(?<=[.!?。！？])\s*/).map((s) => s.trim()).filter((s) => s.length > 0)

/**
 * A cheap engine: first sentences, simple unions, length-based judging. For load tests only. With a draw it keeps a
 * varying number of sentences per passage, reorders its queries and moves its judging margin.
 */
export const liteEngine: ContentEngine = {
  name: "lite",
  init: (_q, passages, draw) => {
    const keep = draw === undefined ? 2 : 1 + Math.floor(draw.random() * (1 + 2 * draw.temperature))
    return passages.slice(0, 3).flatMap((p) => sentences(p.text).slice(0, keep)).join(" ")
  },
  update: (_q, note, passages) => {
    const have = new Set(sentences(note))
    const fresh = passages.flatMap((p) => sentences(p.text).slice(0, 1)).filter((s) => !have.has(s))
    return [note, ...fresh].filter((s) => s.length > 0).join(" ")
  },
  plan: (question, note, queries, count, draw) => {
    const asked = new Set(queries.map((q) => q.toLowerCase()))
    const capitalised = note.split(/\s+/).filter((w) => /^[A-Z\u4e00-\u9fff]/.test(w) && !question.includes(w))
    const words = draw === undefined ? capitalised : nudgeOrder(draw, capitalised)
    const out: Array<string> = []
    for (let i = 0; out.length < count && i < words.length; i++) {
      const q = `${words[i]} ${question.split(/\s+/).slice(0, 3).join(" ")}`.trim()
      if (!asked.has(q.toLowerCase()) && !out.includes(q)) out.push(q)
    }
    return out
  },
  judge: (_q, best, candidate, draw) =>
    candidate.length > best.length * (draw === undefined ? 1.1 : 1.1 * jitter(draw, 0.2)),
  rank: (_q, group) => {
    const lengths = group.candidates.map((c) => c.content.length)
    return { best: lengths.indexOf(Math.max(...lengths)), worst: lengths.indexOf(Math.min(...lengths)) }
  },
  answer: (question, evidence) =>
    /^(is|are|was|were|do|does|did|can|could|has|have)\b/i.test(question) ?
      "yes"
      : evidence._tag === "Note" ?
      evidence.text.split(/\s+/).slice(0, 3).join(" ")
      : evidence._tag === "Passages" ?
      evidence.passages[0]?.title ?? "unknown"
      : "unknown"
}
