import type { Language } from "@deepnote-rag/text"

/** Tuning knobs of the extractive engine. Every field has a default (`defaultOptions`). */
export interface ExtractiveOptions {
  /** Language of notes and answers; default: detected from the question. */
  readonly language?: Language
  /** Most sentences a note keeps (default 8). */
  readonly maxSentences?: number
  /** Most characters a note keeps (default 1200; one over-long top sentence is still kept). */
  readonly maxChars?: number
  /** Least relevance (share of the question's IDF mass) for a sentence to enter a note (default 0.1). */
  readonly minRelevance?: number
  /** Least relevance of a new sentence for the judge to call a note better (default 0.15). */
  readonly judgeThreshold?: number
  /** Weight of bridge terms (note entities absent from the question) relative to question terms (default 0.5). */
  readonly bridgeWeight?: number
  /**
   * Bridge weight when answering (default 0: spans are scored by the question alone; on 300 HotpotQA dev questions
   * the bridge spread candidates and cost ~2 points of accuracy).
   */
  readonly answerBridgeWeight?: number
  /** Question keywords appended to each planned query (default 2). */
  readonly queryKeywords?: number
  /**
   * Least salience of a bridge candidate, relative to the best one, to be asked before the question's own uncovered
   * entities (default 0.5; see `planQueries`).
   */
  readonly queryCutoff?: number
  /**
   * Weight of an entity's closeness to the question's relation words ("directed by" for "director"; default 8).
   * benchmarks/retrieval/loop-recall.md, all gold at 15 passages: 2Wiki 79.8 without the cue, 92.9 with it; HotpotQA
   * 97.0 → 96.7, MuSiQue 65 both (weights 5 to 10 were within two questions of each other while tuning).
   */
  readonly relationWeight?: number
  /**
   * Least share of the question's terms a sentence must hold to enter a note or count for the judge when it holds no
   * anchor (a term of an entity the question names) and no bridge term (default 0.5): common words alone
   * ("held", "position") do not make a sentence relevant.
   */
  readonly unlinkedCoverage?: number
}

export type ResolvedOptions = Required<Omit<ExtractiveOptions, "language">>

export const defaultOptions: ResolvedOptions = {
  maxSentences: 8,
  maxChars: 1200,
  minRelevance: 0.1,
  judgeThreshold: 0.15,
  bridgeWeight: 0.5,
  answerBridgeWeight: 0,
  queryKeywords: 2,
  queryCutoff: 0.5,
  relationWeight: 8,
  unlinkedCoverage: 0.5
}

export const resolveOptions = (options: ExtractiveOptions): ResolvedOptions => ({
  maxSentences: options.maxSentences ?? defaultOptions.maxSentences,
  maxChars: options.maxChars ?? defaultOptions.maxChars,
  minRelevance: options.minRelevance ?? defaultOptions.minRelevance,
  judgeThreshold: options.judgeThreshold ?? defaultOptions.judgeThreshold,
  bridgeWeight: options.bridgeWeight ?? defaultOptions.bridgeWeight,
  answerBridgeWeight: options.answerBridgeWeight ?? defaultOptions.answerBridgeWeight,
  queryKeywords: options.queryKeywords ?? defaultOptions.queryKeywords,
  queryCutoff: options.queryCutoff ?? defaultOptions.queryCutoff,
  relationWeight: options.relationWeight ?? defaultOptions.relationWeight,
  unlinkedCoverage: options.unlinkedCoverage ?? defaultOptions.unlinkedCoverage
})
