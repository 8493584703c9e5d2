/**
 * Test support for `@deepnote-rag/telemetry`: a local OTLP/HTTP receiver. Imported from `@deepnote-rag/telemetry/testing`,
 * never from the main entry, so production code does not ship a test server.
 */
export * from "./Testing/OtlpReceiver.js"
