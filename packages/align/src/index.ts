/**
 * @deepnote-rag/align — DNAlign: DeepNote's DPO preference data. Samples each role over a grid, judges each group,
 * builds pairs in TRL's conversational format, mixes them by the paper's ratios and writes JSONL and a dataset card.
 * See README.md.
 */
export * as ExtractiveRanker from "./Judging/ExtractiveRanker.js"
export * as LlmRanker from "./Judging/LlmRanker.js"
export * from "./Judging/Ranker.js"
export * from "./Output/AtomicFile.js"
export * from "./Output/Card.js"
export * from "./Output/Mix.js"
export * from "./Output/Summary.js"
export * from "./Output/WritePairs.js"
export * from "./PromptHashes.js"
export * from "./Recipe/AlignCalls.js"
export * from "./Recipe/AlignQuestion.js"
export * from "./Recipe/PaperRecipe.js"
export * as ExtractiveSampler from "./Sampling/ExtractiveSampler.js"
export * from "./Sampling/Sampler.js"
export * from "./Sampling/Slots.js"
