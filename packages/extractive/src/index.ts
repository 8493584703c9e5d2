/**
 * @deepnote/extractive — the offline, deterministic, non-neural engine for DeepNote's four LLM roles.
 * A baseline: notes are verbatim passage sentences, answers are spans of the evidence. See README.md.
 */
export * as Extractive from "./Extractive.js"
export { engineName } from "./Extractive.js"
export { answerFrom, unknownAnswer, type AnswerOptions } from "./Answerer.js"
export { comparisonOptions, detectAnswerType, isYesNoQuestion, type AnswerType } from "./AnswerType.js"
export { entities, type Entity, type EntityKind } from "./Entities.js"
export type { Evidence } from "./Evidence.js"
export { judgeNotes, type Judgement } from "./Judge.js"
export { noteSentences, updateNote, writeInitialNote } from "./NoteWriter.js"
export { defaultOptions, type ExtractiveOptions } from "./Options.js"
export { planQueries, planText } from "./Planner.js"
export type { PassageLike } from "./Sentences.js"
