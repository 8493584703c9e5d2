import { bridgeOf, inQuestion, languageOf, questionTerms } from "./Bridge.js"
import { entities, type Entity, type EntityKind, isDescriptor } from "./Entities.js"
import { proximity } from "./Evidence.js"
import { makeIdf } from "./Idf.js"
import { type ExtractiveOptions, resolveOptions } from "./Options.js"
import { relationProximity } from "./Relation.js"
import { normaliseKey, noteUnits, relevance, share, type Target, termsOf, titlePrefix, type Unit } from "./Sentences.js"

/** Names and titles are what a lookup can find; dates and numbers name no passage. Chinese words stand in for names. */
const kindWeight: Record<EntityKind, number> = { title: 1, name: 1, word: 0.8, date: 0, number: 0 }

/** A bridge entity of the note, scored. */
export interface Candidate {
  readonly text: string
  readonly score: number
  readonly mentions: number
  readonly first: number
  /** The sentence that gave the entity its best score. */
  readonly source: Unit
  /** The passage that sentence comes from, as far as the note tells (`subjectOf`). */
  readonly subject: string
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

const opening = /^(.{2,80}?)\s(?:is|was|are|were|has|had)\s/u

/**
 * The passage a note line comes from, as the note shows it: its `Title: ` prefix; else (a line that names its title
 * itself, mostly at its start) a title another line is prefixed with and this line opens with, or the words before
 * its first "is"/"was" ("Payment on Demand is a 1951 film…"), or its first entity; else the line itself.
 */
export const subjectOf = (unit: Unit, entitiesOfUnit: ReadonlyArray<Entity>, titles: ReadonlySet<string>): string => {
  const prefix = titlePrefix(unit.text)
  if (prefix !== "") return normaliseKey(prefix)
  for (const title of titles) if (unit.key.startsWith(title)) return title
  const subject = opening.exec(unit.text)?.[1]
  if (subject !== undefined) return normaliseKey(subject)
  const first = entitiesOfUnit.find((e) => e.kind === "name" || e.kind === "title" || e.kind === "word")
  return first === undefined ? `line ${unit.order}` : normaliseKey(first.text)
}

/** The titles the note's lines are prefixed with (`Title: `), normalised. */
export const prefixedTitles = (units: ReadonlyArray<Unit>): ReadonlySet<string> =>
  new Set(units.map((u) => normaliseKey(titlePrefix(u.text))).filter((k) => k.length > 0))

/**
 * The note's bridge candidates, best first: names and titles in the sentences most tied to the question that neither
 * the question, a read passage's title nor an earlier query names. Salience = entity weight (titles, multi-word names
 * first; one-word names less; descriptors such as "American", dates and numbers never) × (the sentence's tie: anchor
 * share + relevance to question and bridge, plus the entity's closeness to the anchors in it and, × `relationWeight`,
 * to the question's relation words) × the share of its terms that are not anchors ("Meet Corliss Archer" is the
 * question's own entity), +25% per further mention.
 */
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
  const relation = [...terms].filter((t) => !anchors.has(t))
  const target: Target = { question: terms, bridge, bridgeWeight: opts.bridgeWeight }
  const read = prefixedTitles(units)
  const logged = queryLog.map(normaliseKey)
  const candidates = new Map<string, Candidate>()
  let position = 0
  for (const u of units) {
    const tie = share(u, anchors, idf) + relevance(u, target, idf)
    const found = entities(u.text, language)
    const subject = subjectOf(u, found, read)
    for (const entity of found) {
      position++
      const key = normaliseKey(entity.text)
      if (key.length < 2 || read.has(key) || inQuestion(entity.text, question, terms)) continue
      if (logged.some((q) => q.includes(key))) continue
      // "Meet Corliss Archer" is mostly the question's own entity: a first-hop variant, not a bridge.
      const all = termsOf(entity.text)
      const novelty = all.length === 0 ? 0 : all.filter((t) => !anchors.has(t)).length / all.length
      // Next to the question's words ("starring Shirley Temple as Corliss Archer") is where a bridge sits, and next
      // to its relation words ("directed by Curtis Bernhardt" for "the director") is the one it asks for.
      const near = proximity(u.text, entity.start, { question: anchors, bridge, bridgeWeight: 0 }, idf) +
        opts.relationWeight * relationProximity(u.text, entity.start, relation, idf)
      const score = entityWeight(entity, u) * (tie + near) * novelty
      const seen = candidates.get(key)
      const keep = seen !== undefined && seen.score >= score
      candidates.set(key, {
        text: keep ? seen.text : entity.text,
        score: Math.max(score, seen?.score ?? 0),
        mentions: (seen?.mentions ?? 0) + 1,
        first: seen?.first ?? position,
        source: keep ? seen.source : u,
        subject: keep ? seen.subject : subject
      })
    }
  }
  const ranked = [...candidates.values()]
    .map((c) => ({ ...c, score: c.score * (1 + 0.25 * Math.min(4, c.mentions - 1)) }))
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || a.first - b.first)
  return { anchors, terms, ranked, units }
}
