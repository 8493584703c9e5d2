import { defineProject } from "vitest/config"

// Workspace packages resolve to their TypeScript sources through the "@deepnote-rag/source" export condition,
// so tests run without a build. The others are Vite's default server conditions without "module": vitest hands them to
// Node as --conditions, and "module" would make Node load bundler-only ESM builds (@opentelemetry/api's fails there).
export default defineProject({
  ssr: { resolve: { conditions: ["@deepnote-rag/source", "node", "development|production"] } },
  test: { include: ["test/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000 }
})
