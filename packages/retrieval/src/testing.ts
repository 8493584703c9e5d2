/**
 * Test support for `@deepnote-rag/retrieval` and the packages above it: a local JSON server standing in for a reranker or
 * a search engine. Imported from `@deepnote-rag/retrieval/testing`, never from the main entry, so production code does not
 * ship a test server.
 */
export * from "./Testing/LocalServer.js"
export * from "./Testing/MeiliReplay.js"
export * from "./Testing/MeiliShapes.js"
