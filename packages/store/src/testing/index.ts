export * from "./EmbeddedPostgres.js"
export * from "./Results.js"
