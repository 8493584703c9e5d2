/**
 * @deepnote-rag/extractive — the offline, deterministic, non-neural engine for DeepNote's four LLM roles.
 * A baseline: notes are verbatim passage sentences, answers are spans of the evidence. See README.md.
 */
export { answerFrom, type AnswerOptions, unknownAnswer } from "./Answerer.js"
export { type AnswerType, comparisonOptions, detectAnswerType, isYesNoQuestion } from "./AnswerType.js"
export { entities, type Entity, type EntityKind } from "./Entities.js"
export type { Evidence } from "./Evidence.js"
export * as Extractive from "./Extractive.js"
export { type Judgement, judgeNotes } from "./Judge.js"
export { updateNote, writeInitialNote } from "./NoteWriter.js"
export { defaultOptions, type ExtractiveOptions } from "./Options.js"
export { planQueries, planText } from "./Planner.js"
export { type Ranked, rankNotes, rankQueries } from "./Rank.js"
export type { PassageLike } from "./Sentences.js"
