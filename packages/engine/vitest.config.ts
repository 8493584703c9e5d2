import { defineProject } from "vitest/config"

// Workspace packages resolve to their TypeScript sources through the "@deepnote/source" export condition,
// so tests run without a build. The other entries are Vite's default server conditions.
export default defineProject({
  ssr: { resolve: { conditions: ["@deepnote/source", "module", "node", "development|production"] } },
  test: { include: ["test/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000 }
})
