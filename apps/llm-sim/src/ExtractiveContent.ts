import {
  answerFrom,
  defaultOptions,
  type Evidence,
  type ExtractiveOptions,
  judgeNotes,
  planQueries,
  rankNotes,
  rankQueries,
  unknownAnswer,
  updateNote,
  writeInitialNote
} from "@deepnote-rag/extractive"
import { Option, Schema } from "effect"
import type { ContentEngine, RankGroup, SimEvidence } from "./Content.js"
import { type Draw, jitter, nudgeOrder } from "./Sampling.js"

/**
 * The offline extractive engine (packages/extractive) as the simulator's content: the one wiring file.
 * Without a draw every role is the engine itself. With one (temperature > 0) the engine's options are perturbed by
 * the draw, so a reply varies with the seed and stays well-formed for its role:
 * - notes: a smaller sentence budget and a moved relevance floor and bridge weight (near-tied sentences swap in/out);
 * - planned queries: a lower salience cutoff (runners-up become eligible) and a lightly shuffled candidate order;
 * - the judge: its threshold moved, so a close call flips with a probability growing with temperature;
 * - the answerer: one of its top span candidates (the best, else the best once the best's sentences are set aside).
 */

const noteOptions = (draw: Draw | undefined): ExtractiveOptions =>
  draw === undefined ? {} : {
    maxSentences: Math.max(1, defaultOptions.maxSentences - Math.floor(draw.random() * draw.temperature * 6)),
    minRelevance: defaultOptions.minRelevance * jitter(draw, 0.8),
    bridgeWeight: defaultOptions.bridgeWeight * jitter(draw, 0.8)
  }

const plan = (
  question: string,
  note: string,
  queries: ReadonlyArray<string>,
  count: number,
  draw: Draw | undefined
): ReadonlyArray<string> => {
  if (draw === undefined) return planQueries(question, note, queries, count)
  const cutoff = defaultOptions.queryCutoff * (1 - 0.7 * draw.temperature * draw.random())
  const candidates = planQueries(question, note, queries, count + 2, { queryCutoff: Math.max(0, cutoff) })
  return nudgeOrder(draw, candidates).slice(0, count)
}

const toEvidence = (evidence: SimEvidence): Evidence =>
  evidence._tag === "Note" ? { _tag: "Note", note: { text: evidence.text } } : evidence

/** The evidence without the sentences that hold `span`: where the answerer's next candidate comes from. */
const without = (evidence: SimEvidence, span: string): SimEvidence => {
  const keep = (text: string) => text.split(/(?<=[.!?。！？\n])\s*/u).filter((s) => !s.includes(span)).join(" ").trim()
  switch (evidence._tag) {
    case "Note":
      return { _tag: "Note", text: keep(evidence.text) }
    case "Passages":
      return { _tag: "Passages", passages: evidence.passages.map((p) => ({ ...p, text: keep(p.text) })) }
    case "None":
      return evidence
  }
}

const answer = (question: string, evidence: SimEvidence, draw: Draw | undefined): string => {
  const best = answerFrom(question, toEvidence(evidence))
  if (draw === undefined) return best
  const unknown = new Set<string>(Object.values(unknownAnswer))
  const candidates = [best]
  let rest = evidence
  for (let i = 0; i < 2; i++) {
    rest = without(rest, candidates[candidates.length - 1]!)
    const next = answerFrom(question, toEvidence(rest))
    if (unknown.has(next) || candidates.includes(next)) break
    candidates.push(next)
  }
  if (candidates.length === 1 || draw.random() >= 0.6 * Math.min(1, draw.temperature)) return best
  return candidates[1 + Math.floor(draw.random() * (candidates.length - 1))]!
}

/** A query set as a planner wrote it: `{"queries": [...]}`, else one query per line. */
const QuerySet = Schema.parseJson(Schema.Struct({ queries: Schema.Array(Schema.String) }))

const queriesOf = (content: string): ReadonlyArray<string> =>
  Option.getOrElse(
    Option.map(Schema.decodeUnknownOption(QuerySet)(/\{[\s\S]*\}/u.exec(content)?.[0] ?? ""), (set) => set.queries),
    () => content.split("\n").map((l) => l.replace(/^\s*\d+[.)]\s*/u, "").trim()).filter((l) => l.length > 0)
  )

/** The extractive engine's group judges (the paper's criteria as rules). */
const rank = (question: string, group: RankGroup) =>
  group._tag === "Notes"
    ? rankNotes(question, group.passages, group.candidates.map((c) => c.content))
    : rankQueries(question, group.note, group.queries, group.candidates.map((c) => queriesOf(c.content)))

export const extractiveEngine: ContentEngine = {
  name: "extractive",
  init: (question, passages, draw) => writeInitialNote(question, passages, noteOptions(draw)),
  update: (question, note, passages, draw) => updateNote(question, note, passages, noteOptions(draw)),
  plan,
  judge: (question, best, candidate, draw) =>
    judgeNotes(
      question,
      best,
      candidate,
      draw === undefined ? {} : { judgeThreshold: defaultOptions.judgeThreshold * jitter(draw, 1) }
    ).better,
  answer,
  rank
}
