// HotpotQA (IRCoT) as the retrieval benchmarks read it: the corpus of every paragraph of the questions, and each
// question's gold passages (its supporting paragraphs) by the id ingestion gives them (title + text).
import { passageId } from "@deepnote-rag/retrieval"

const norm = (s) => s.replace(/\s+/g, " ").trim()

/**
 * `corpus`: id → `{ id, title, text }` (white space folded) over every paragraph of `questions`; `items`: per question,
 * `{ question, gold }` (the set of its supporting paragraphs' ids).
 */
export const hotpotCorpus = (questions) => {
  const corpus = new Map()
  const items = questions.map((q) => {
    const gold = new Set()
    for (const c of q.contexts) {
      const id = passageId(c.title, c.paragraph_text)
      corpus.set(id, { id, title: c.title, text: norm(c.paragraph_text) })
      if (c.is_supporting) gold.add(id)
    }
    return { question: q.question_text, gold }
  })
  return { corpus, items }
}
