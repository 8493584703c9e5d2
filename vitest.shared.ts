import { fileURLToPath } from "node:url"
import { defineProject, type UserWorkspaceConfig } from "vitest/config"

type TestOptions = NonNullable<UserWorkspaceConfig["test"]>

/**
 * Every package's test project (its `vitest.config.ts` is `packageProject()`, with its own options when it needs them).
 *
 * - Workspace packages resolve to their TypeScript sources through the "@deepnote-rag/source" export condition, so
 *   tests run without a build. With `source: false` (a suite that needs the build anyway: the CLI's runs the built
 *   command) they resolve to their built JavaScript, which Node loads itself instead of Vite transforming it per file.
 *   The other conditions are Vite's default server ones without "module": vitest hands them to Node as --conditions,
 *   and "module" would make Node load bundler-only ESM builds (@opentelemetry/api's fails there).
 * - `isolate: false`: a worker keeps the modules it has loaded from one test file to the next instead of importing
 *   Effect and the package's sources again for each file. Loading them was most of the suite's CPU: `packages/core`'s
 *   14 files took 56 s (24.7 s of user CPU, "collect 31.65 s") with isolation and 9 s (5.1 s) without. Every package's
 *   suite passed this way except the CLI's, which keeps isolation (see its config): a test must leave nothing running
 *   and no module state behind when its scope closes. `vitest.setup.ts` puts back what `@effect/vitest`'s `layer`
 *   leaves behind in its shared `it` before each file.
 * - The time limits are for hung tests, not a speed bound: on a busy 2-core machine a test takes 2–3 times as long.
 */
export const packageProject = (test: TestOptions = {}, options: { readonly source?: boolean } = {}) => {
  const built = options.source === false
  return defineProject({
    ssr: {
      resolve: { conditions: [...(built ? [] : ["@deepnote-rag/source"]), "node", "development|production"] }
    },
    test: {
      include: ["test/**/*.test.ts"],
      testTimeout: 60_000,
      hookTimeout: 60_000,
      isolate: false,
      setupFiles: [fileURLToPath(new URL("vitest.setup.ts", import.meta.url))],
      // the workspace's built files are not under node_modules, so Vitest would inline (transform) them without this
      ...(built ? { server: { deps: { external: [/\/(packages|apps)\/[^/]+\/dist\//] } } } : {}),
      ...test
    }
  })
}
