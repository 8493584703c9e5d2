import { languageOf } from "./Bridge.js"
import { bridgeCandidates, type Candidate } from "./BridgeCandidates.js"
import { answerKeywords } from "./Keywords.js"
import { type ExtractiveOptions, resolveOptions } from "./Options.js"
import { uncoveredQuestionEntities } from "./QuestionEntities.js"
import { termsOf } from "./Sentences.js"

/**
 * Candidates best first, except that a candidate from a passage not yet drawn from goes before one from a passage
 * already drawn from when its score is at least half of it: the second query of a comparison names the other film's
 * director rather than the first film's star.
 */
const diversify = (ranked: ReadonlyArray<Candidate>): Array<Candidate> => {
  const left = [...ranked]
  const out: Array<Candidate> = []
  const drawn = new Set<string>()
  while (left.length > 0) {
    const fresh = left.findIndex((c) => !drawn.has(c.subject))
    const i = fresh > 0 && left[fresh]!.score >= 0.5 * left[0]!.score ? fresh : 0
    const c = left.splice(i, 1)[0]!
    out.push(c)
    drawn.add(c.subject)
  }
  return out
}

/**
 * Query refinement: up to `count` queries, each an entity plus `queryKeywords` question words its passage should hold
 * (`answerKeywords`), in this order:
 * 1. the note's bridge entities (`bridgeCandidates`) within `queryCutoff` of the best — names and titles that neither
 *    the question, a read passage's title nor an earlier query names, in the sentences most tied to the question and
 *    next to its relation words; one from a passage not yet drawn from goes first (`diversify`);
 * 2. the entities the question names whose own passage the note does not show yet (`uncoveredQuestionEntities`: the
 *    second film of a comparison that the first retrieval missed), once the note holds something (with nothing read
 *    the question itself is the query: the loops send it when nothing is proposed);
 * 3. the remaining bridge candidates, in the same order.
 * Deterministic: ties keep the note's reading order. Returns at most `count` queries, possibly none.
 */
export const planQueries = (
  question: string,
  note: string,
  queryLog: ReadonlyArray<string>,
  count: number,
  options: ExtractiveOptions = {}
): ReadonlyArray<string> => {
  const opts = resolveOptions(options)
  const { anchors, ranked, terms, units } = bridgeCandidates(question, note, queryLog, options)
  const cutoff = opts.queryCutoff * (ranked[0]?.score ?? 0)
  const ordered = diversify(ranked)
  // Nothing read yet (an empty note): the question itself is the query, which the loops send when nothing is proposed.
  const named = units.length === 0
    ? []
    : uncoveredQuestionEntities(question, units, queryLog, languageOf(question, options.language))
  const query = (entity: string, own: ReadonlySet<string>) => {
    const covered = new Set([...anchors, ...own, ...termsOf(entity)])
    return [entity, ...answerKeywords(question, terms, covered, opts.queryKeywords)].join(" ")
  }
  return [
    ...ordered.filter((c) => c.score >= cutoff).map((c) => query(c.text, c.source.terms)),
    ...named.map((entity) => query(entity, new Set())),
    ...ordered.filter((c) => c.score < cutoff).map((c) => query(c.text, c.source.terms))
  ].slice(0, Math.max(0, count))
}

/** The planner's output as one text, one query per line (what an LLM planner would print). */
export const planText = (queries: ReadonlyArray<string>): string => queries.join("\n")
