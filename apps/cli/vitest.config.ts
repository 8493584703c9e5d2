import { defineProject } from "vitest/config"

// Workspace packages resolve to their TypeScript sources through the "@deepnote-rag/source" export condition,
// so tests run without a build. The others are Vite's default server conditions without "module": vitest hands them to
// Node as --conditions, and "module" would make Node load bundler-only ESM builds (@opentelemetry/api's fails there).
// Three files at once: these tests mostly wait on child processes and on the simulator's decode steps, not on a core
// (Vitest's default on a 2-core machine is one file at a time). The time limits are for hung tests, not a speed bound:
// a table of ten child processes took over 60 s beside three other suites at load 9.
export default defineProject({
  ssr: { resolve: { conditions: ["@deepnote-rag/source", "node", "development|production"] } },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 150_000,
    hookTimeout: 60_000,
    pool: "forks",
    poolOptions: { forks: { minForks: 1, maxForks: 3 } }
  }
})
