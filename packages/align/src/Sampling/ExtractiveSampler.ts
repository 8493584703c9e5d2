import type { AnswerEvidence, SamplePoint } from "@deepnote-rag/core"
import {
  answerFrom,
  type AnswerOptions,
  defaultOptions,
  Extractive,
  type ExtractiveOptions,
  unknownAnswer
} from "@deepnote-rag/extractive"
import { Effect } from "effect"
import type { SampledRoles, Sampler } from "./Sampler.js"
import type { SampleSlot } from "./Slots.js"

/**
 * The extractive engine's options at one slot, so CI can run DNAlign's whole path offline with deterministic
 * samples: top_p sets the note's sentence and character budget and the question words added to each query (a wider
 * nucleus keeps more); temperature moves the relevance floor and the bridge weight of notes and lowers the planner's
 * salience cutoff (runners-up become eligible), as a hotter sampler strays further from the single best choice.
 */
export const variantOptions = (slot: SampleSlot): ExtractiveOptions => {
  const t = slot.temperature
  const p = slot.topP
  return {
    maxSentences: Math.max(2, Math.round(defaultOptions.maxSentences * (0.35 + 0.65 * p))),
    maxChars: Math.round(defaultOptions.maxChars * (0.5 + 0.5 * p)),
    minRelevance: defaultOptions.minRelevance * (0.4 + 1.2 * t),
    bridgeWeight: defaultOptions.bridgeWeight * (1.4 - t),
    queryKeywords: p < 0.3 ? 1 : p < 0.7 ? 2 : 3,
    queryCutoff: defaultOptions.queryCutoff * Math.max(0, 1 - 0.8 * t)
  }
}

/**
 * Which candidate answer a slot gives: the best span at low temperature, the runner-up at temperature ≥ 0.5 with a
 * wide nucleus (top_p ≥ 0.5), the third at temperature ≥ 0.9 (a hot sampler's less likely answers).
 */
export const answerRank = (slot: SampleSlot): number =>
  slot.temperature >= 0.9 && slot.topP >= 0.5 ? 2 : slot.temperature >= 0.5 && slot.topP >= 0.5 ? 1 : 0

/** The evidence without the sentences that hold `span`: where the answerer's next candidate comes from. */
const without = (evidence: AnswerEvidence, span: string): AnswerEvidence => {
  const keep = (text: string) => text.split(/(?<=[.!?。！？\n])\s*/u).filter((s) => !s.includes(span)).join(" ").trim()
  switch (evidence._tag) {
    case "Note":
      return { _tag: "Note", note: { ...evidence.note, text: keep(evidence.note.text) } }
    case "Passages":
      return { _tag: "Passages", passages: evidence.passages.map((p) => ({ ...p, text: keep(p.text) })) }
    case "None":
      return evidence
  }
}

/** The `rank`-th answer candidate (0 = the engine's answer); the last one found when there are fewer. */
const rankedAnswer = (
  question: string,
  evidence: AnswerEvidence,
  options: AnswerOptions,
  rank: number
): string => {
  const unknown = new Set<string>(Object.values(unknownAnswer))
  let answer = answerFrom(question, evidence, options)
  let rest = evidence
  for (let i = 0; i < rank; i++) {
    rest = without(rest, answer)
    const next = answerFrom(question, rest, options)
    if (unknown.has(next) || next === answer) break
    answer = next
  }
  return answer
}

const keyOf = (point: SamplePoint) => `${point.temperature}/${point.topP}`

/** The extractive roles at every point of the grid, built once each; a slot takes its point's roles. */
export const make = (grid: ReadonlyArray<SamplePoint>): Effect.Effect<Sampler> =>
  Effect.gen(function*() {
    const built = new Map<string, SampledRoles>()
    for (const point of grid) {
      if (built.has(keyOf(point))) continue
      const slot = { sample: 0, seed: 0, ...point }
      const options = variantOptions(slot)
      const roles = yield* Extractive.make(options)
      const rank = answerRank(slot)
      const answerer = Extractive.answerer(
        options,
        (question, evidence, o) => rankedAnswer(question, evidence, o, rank)
      )
      built.set(keyOf(point), { noteWriter: roles.noteWriter, queryPlanner: roles.queryPlanner, answerer })
    }
    // a slot off the grid (a stage sampled once at the run's own sampling) gets the engine's default options
    const defaults = yield* Extractive.make()
    const fallback: SampledRoles = { ...defaults, answerer: defaults.answerer }
    return { at: (slot) => built.get(keyOf(slot)) ?? fallback }
  })
