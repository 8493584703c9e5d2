import { cjkBigrams, detectLanguage, hasCjk, tokenize } from "@deepnote-rag/text"

/** The four indexed columns of a passage, pre-tokenised and space-joined for FTS5's `unicode61` tokenizer. */
export interface AnalyzedDocument {
  /** Words of the title: English lower-cased without stop words; Chinese segmented by jieba (search mode). */
  readonly title: string
  readonly body: string
  /** CJK character bigrams (empty unless the passage has Han characters). */
  readonly titleCjk: string
  readonly bodyCjk: string
  readonly lang: "en" | "zh"
}

/** Tokenises a passage for indexing. Chinese gets both jieba words and character bigrams; English only words. */
export const analyzeDocument = (title: string, text: string): AnalyzedDocument => {
  const cjk = hasCjk(title) || hasCjk(text)
  return {
    title: tokenize(title, { search: true }).join(" "),
    body: tokenize(text, { search: true }).join(" "),
    titleCjk: cjk ? cjkBigrams(title).join(" ") : "",
    bodyCjk: cjk ? cjkBigrams(text).join(" ") : "",
    lang: cjk ? detectLanguage(`${title} ${text}`) : "en"
  }
}
