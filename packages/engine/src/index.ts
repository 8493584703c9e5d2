/**
 * @deepnote-rag/engine — the one place the engine (retriever + four roles) is assembled, for CLI asks, runs and the HTTP
 * app. See README.md.
 */
export * from "./AdHocQuestion.js"
export * from "./EmbeddingFacts.js"
export * as Engine from "./Engine.js"
export type { EngineServices } from "./Engine.js"
export * from "./PromptSetHash.js"
