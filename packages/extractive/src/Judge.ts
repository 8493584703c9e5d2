import { bridgeOf, isLinked, languageOf } from "./Bridge.js"
import { makeIdf } from "./Idf.js"
import { type ExtractiveOptions, resolveOptions } from "./Options.js"
import { normaliseKey, noteUnits, relevance, repeats, type Target } from "./Sentences.js"

export interface Judgement {
  /** True iff the candidate adds at least one question-relevant sentence the best note lacks. */
  readonly better: boolean
  /** The candidate's new sentences whose relevance reaches the threshold. */
  readonly added: ReadonlyArray<string>
  /** A one-line reason, for audit. */
  readonly reason: string
}

/**
 * The adaptive-retrieval decision: "better" iff the candidate note holds new sentences (not in the best note, by
 * normalised comparison) whose relevance to the question and the best note's bridge terms (`bridgeOf`) reaches
 * `judgeThreshold` and that are linked to the question (`isLinked`: an anchor or bridge term, or `unlinkedCoverage`
 * of the question on their own). A sentence sharing only common words ("held", "position") does not count; a
 * reordered or repeated note adds nothing, so it is never better.
 */
export const judgeNotes = (
  question: string,
  bestNote: string,
  candidate: string,
  options: ExtractiveOptions = {}
): Judgement => {
  const opts = resolveOptions(options)
  const language = languageOf(question, options.language)
  const old = noteUnits(bestNote)
  const keys = new Set(old.map((u) => u.key))
  const noteKey = normaliseKey(bestNote)
  const fresh = noteUnits(candidate).filter((u) => !repeats(u, keys, noteKey))
  const idf = makeIdf([...old, ...fresh].map((u) => u.terms))
  const { anchors, bridge, terms } = bridgeOf(old, question, language, idf)
  const target: Target = { question: terms, bridge, bridgeWeight: opts.bridgeWeight }
  const links = { anchors, bridge, question: terms }
  const added = fresh
    .filter((u) => relevance(u, target, idf) >= opts.judgeThreshold && isLinked(u, links, idf, opts.unlinkedCoverage))
    .map((u) => u.text)
  const reason = added.length > 0
    ? `${added.length} new question-relevant sentence(s)`
    : fresh.length > 0
    ? `${fresh.length} new sentence(s), none relevant enough (< ${opts.judgeThreshold})`
    : "no new sentences"
  return { better: added.length > 0, added, reason }
}
