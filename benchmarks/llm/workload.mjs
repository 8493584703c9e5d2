// Synthetic multi-hop workload: films, directors, cities. Deterministic for a seed.
import { Passage, Question, Retriever, seededRandom } from "@deepnote-rag/core"
import { Effect } from "effect"

const syllables = ["ka", "lo", "mir", "tan", "vel", "dor", "sa", "ren", "bu", "qui", "zan", "pel", "mo", "rix", "ta", "nor"]
const name = (r, parts) => Array.from({ length: parts }, () => syllables[Math.floor(r() * syllables.length)]).join("")
const cap = (s) => s[0].toUpperCase() + s.slice(1)

/** `n` questions about films, their directors and birthplaces, over a corpus with distractors. */
export const makeWorkload = (n, seed = 42) => {
  const r = seededRandom(seed)
  const passages = []
  const questions = []
  const cities = Array.from({ length: 60 }, () => cap(name(r, 3)) + " City")
  for (let i = 0; i < n; i++) {
    const film = `${cap(name(r, 2))} ${cap(name(r, 3))}`
    const director = `${cap(name(r, 2))} ${cap(name(r, 3))}`
    const city = cities[Math.floor(r() * cities.length)]
    const year = 1950 + Math.floor(r() * 70)
    passages.push({ title: film, text: `${film} is a ${year} drama film directed by ${director}. The film was shot over ${2 + Math.floor(r() * 20)} weeks and received mixed reviews from critics.` })
    passages.push({ title: director, text: `${director} is a film director and screenwriter. ${director} was born in ${city} in ${year - 30 - Math.floor(r() * 20)}. ${director} studied at the national film school.` })
    passages.push({ title: `${film} (soundtrack)`, text: `The soundtrack of ${film} was released on vinyl. It includes ${5 + Math.floor(r() * 10)} songs by various artists.` })
    // A mix of two-hop and one-hop questions, so questions need different numbers of steps (as real ones do).
    const kind = r()
    questions.push(
      kind < 0.15
        // About a film the corpus does not hold: such questions tend to stop early (nothing new to find).
        ? new Question({ id: `q${i}`, text: `Who composed the score of the musical ${cap(name(r, 3))} ${cap(name(r, 2))}?`, answers: ["unknown"] })
        : kind < 0.55
        ? new Question({ id: `q${i}`, text: `Where was the director of the film ${film} born?`, answers: [city] })
        : kind < 0.75
        ? new Question({ id: `q${i}`, text: `Who directed the film ${film}?`, answers: [director] })
        : new Question({ id: `q${i}`, text: `In which year was the drama film ${film} released?`, answers: [String(year)] })
    )
  }
  for (const city of cities) passages.push({ title: city, text: `${city} is a mid-sized city known for its river port and its annual film festival.` })
  return { questions, passages: passages.map((p, i) => new Passage({ id: `p${i}`, ...p, source: "synthetic", score: 0 })) }
}

const tokens = (text) => text.toLowerCase().match(/[a-z0-9]+/g) ?? []
const stop = new Set(["the", "of", "was", "is", "a", "in", "by", "where", "and", "it", "its", "for", "from", "on", "film"])

/** An in-memory inverted index; score = count of distinct shared terms (rarer terms weigh more). */
export const retrieverLayer = (passages) => {
  const postings = new Map()
  passages.forEach((p, i) => {
    for (const t of new Set(tokens(`${p.title} ${p.text}`))) {
      if (stop.has(t)) continue
      let list = postings.get(t)
      if (!list) postings.set(t, (list = []))
      list.push(i)
    }
  })
  return Retriever.layerTest({
    search: (request) =>
      Effect.sync(() => {
        const scores = new Map()
        for (const q of request.queries) {
          for (const t of new Set(tokens(q))) {
            const list = postings.get(t)
            if (!list || list.length > 200) continue
            const w = 1 / Math.log2(1 + list.length)
            for (const i of list) scores.set(i, (scores.get(i) ?? 0) + w)
          }
        }
        return [...scores]
          .filter(([i]) => !request.exclude.has(passages[i].id))
          .sort((a, b) => b[1] - a[1])
          .slice(0, request.topK)
          .map(([i, score]) => new Passage({ ...passages[i], score }))
      })
  })
}
