/**
 * Test support shared by the packages and apps above `@deepnote-rag/core`: a local HTTP server's lifetime. Imported from
 * `@deepnote-rag/core/testing`, never from the main entry.
 */
export * from "./Testing/LocalHttpServer.js"
