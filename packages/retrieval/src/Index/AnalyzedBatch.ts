import type { CorpusDocument } from "../Domain/CorpusDocument.js"
import { analyzeDocument } from "./Analyzer.js"
import type { AnalyzedPassage } from "./FtsQueries.js"

export type { AnalyzedPassage } from "./FtsQueries.js"

/** Tokenises a batch, one passage per id: the first occurrence when skipping duplicates, the last when replacing. */
export const analyzeBatch = (
  documents: ReadonlyArray<CorpusDocument>,
  onDuplicate: "skip" | "replace"
): Array<AnalyzedPassage> => {
  const byId = new Map<string, CorpusDocument>()
  for (const d of documents) if (onDuplicate === "replace" || !byId.has(d.id)) byId.set(d.id, d)
  return Array.from(byId.values(), (d): AnalyzedPassage => {
    const a = analyzeDocument(d.title, d.text)
    const metadata = d.metadata === undefined ? null : JSON.stringify(d.metadata)
    return {
      document: { id: d.id, title: d.title, text: d.text, metadata, lang: a.lang },
      fts: { title: a.title, body: a.body, title_cjk: a.titleCjk, body_cjk: a.bodyCjk }
    }
  })
}
