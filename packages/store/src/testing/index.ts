export * from "./EmbeddedPostgres.js"
