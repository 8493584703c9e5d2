import { bridgeOf, inQuestion, languageOf, questionTerms } from "./Bridge.js"
import { entities, type Entity, type EntityKind, isDescriptor } from "./Entities.js"
import { proximity } from "./Evidence.js"
import { makeIdf } from "./Idf.js"
import { answerKeywords } from "./Keywords.js"
import { type ExtractiveOptions, resolveOptions } from "./Options.js"
import { normaliseKey, noteUnits, relevance, share, type Target, termsOf, titlePrefix, type Unit } from "./Sentences.js"

/** Names and titles are what a lookup can find; dates and numbers name no passage. Chinese words stand in for names. */
const kindWeight: Record<EntityKind, number> = { title: 1, name: 1, word: 0.8, date: 0, number: 0 }

interface Candidate {
  readonly text: string
  readonly score: number
  readonly mentions: number
  readonly first: number
  /** The sentence that gave the entity its best score. */
  readonly source: Unit
}

/** How much an entity looks like something to look up, before its sentence's tie to the question. */
const entityWeight = (entity: Entity, unit: Unit): number => {
  let weight = kindWeight[entity.kind]
  // A one-word name is often a descriptor ("American") or a short form; a multi-word name is a proper name.
  if (entity.kind !== "word" && !/\s/u.test(entity.text)) weight *= isDescriptor(entity, unit.text) ? 0 : 0.7
  // A line without a `Title: ` prefix names its passage's title itself, mostly as its opening entity: read already.
  if (entity.start === 0 && titlePrefix(unit.text) === "") weight *= 0.5
  return weight
}

/**
 * Query refinement: the note's bridge entities — names and titles in the sentences most tied to the question (those
 * holding its anchors, the entities it names) that neither the question, a read passage's title nor an earlier query
 * names. Salience = entity weight (titles, multi-word names first; one-word names less; descriptors such as
 * "American", dates and numbers never) × (the sentence's tie: anchor share + relevance to question and bridge, plus
 * the entity's closeness to the anchors in it) × the share of its terms that are not anchors ("Meet Corliss Archer" is
 * the question's own entity), +25% per further mention. Only candidates within `queryCutoff` of the best are kept
 * (default: the best alone, ties aside): the pipeline fuses each query's list with reciprocal ranks, and every list is
 * retrieved with the question, so a passage only one query finds loses to passages the question finds in every list.
 * Each query is the entity plus `queryKeywords` question words its passage should hold (`answerKeywords`).
 * Returns at most `count` queries, possibly none.
 */
export const planQueries = (
  question: string,
  note: string,
  queryLog: ReadonlyArray<string>,
  count: number,
  options: ExtractiveOptions = {}
): ReadonlyArray<string> => {
  const opts = resolveOptions(options)
  const { anchors, ranked, terms } = bridgeCandidates(question, note, queryLog, options)
  const best = ranked[0]?.score ?? 0
  return ranked
    .filter((c) => c.score >= opts.queryCutoff * best)
    .slice(0, Math.max(0, count))
    .map((c) => {
      const covered = new Set([...anchors, ...c.source.terms, ...termsOf(c.text)])
      return [c.text, ...answerKeywords(question, terms, covered, opts.queryKeywords)].join(" ")
    })
}

/** The scored bridge candidates of a note, best first (see `planQueries`). */
export const bridgeCandidates = (
  question: string,
  note: string,
  queryLog: ReadonlyArray<string>,
  options: ExtractiveOptions = {}
) => {
  const opts = resolveOptions(options)
  const language = languageOf(question, options.language)
  const units = noteUnits(note)
  const terms = questionTerms(question)
  const idf = makeIdf([...units.map((u) => u.terms), terms])
  const { anchors, bridge } = bridgeOf(units, question, language, idf)
  const target: Target = { question: terms, bridge, bridgeWeight: opts.bridgeWeight }
  const read = new Set(units.map((u) => normaliseKey(titlePrefix(u.text))).filter((k) => k.length > 0))
  const logged = queryLog.map(normaliseKey)
  const candidates = new Map<string, Candidate>()
  let position = 0
  for (const u of units) {
    const tie = share(u, anchors, idf) + relevance(u, target, idf)
    for (const entity of entities(u.text, language)) {
      position++
      const key = normaliseKey(entity.text)
      if (key.length < 2 || read.has(key) || inQuestion(entity.text, question, terms)) continue
      if (logged.some((q) => q.includes(key))) continue
      // "Meet Corliss Archer" is mostly the question's own entity: a first-hop variant, not a bridge.
      const all = termsOf(entity.text)
      const novelty = all.length === 0 ? 0 : all.filter((t) => !anchors.has(t)).length / all.length
      // Next to the question's words ("starring Shirley Temple as Corliss Archer") is where a bridge sits.
      const near = proximity(u.text, entity.start, { question: anchors, bridge, bridgeWeight: 0 }, idf)
      const score = entityWeight(entity, u) * (tie + near) * novelty
      const seen = candidates.get(key)
      candidates.set(key, {
        text: seen !== undefined && seen.score >= score ? seen.text : entity.text,
        score: Math.max(score, seen?.score ?? 0),
        mentions: (seen?.mentions ?? 0) + 1,
        first: seen?.first ?? position,
        source: seen !== undefined && seen.score >= score ? seen.source : u
      })
    }
  }
  const ranked = [...candidates.values()]
    .map((c) => ({ ...c, score: c.score * (1 + 0.25 * Math.min(4, c.mentions - 1)) }))
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || a.first - b.first)
  return { anchors, terms, ranked }
}

/** The planner's output as one text, one query per line (what an LLM planner would print). */
export const planText = (queries: ReadonlyArray<string>): string => queries.join("\n")
