// `npm test`: lint (ESLint with the formatter over the whole tree in one process — one type-aware program instead of one
// per package, ~1 CPU-minute instead of ~3 — and the Effect diagnostics), build and every package's tests through turbo —
// a package whose inputs did not change is neither rebuilt nor retested (its report comes from turbo's cache) — then
// one plain line "N passed, N failed" over every package's report. Exits non-zero when anything failed: a test, a
// suite, the build or lint (then counted as one failure). A failing package does not stop the others (`--continue`):
// the summary counts every package that could run. Extra arguments go to turbo (e.g. `--force`).
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, rmSync } from "node:fs"
import { join } from "node:path"

const root = new URL("..", import.meta.url).pathname
for (const group of ["packages", "apps"]) {
  for (const name of readdirSync(join(root, group))) {
    const report = join(root, group, name, ".vitest-results.json")
    if (existsSync(report)) rmSync(report)
  }
}
const turbo = spawnSync(
  "npx",
  ["turbo", "run", "eslint", "diagnostics", "test", "--continue", "--concurrency=2", "--log-order=grouped", "--output-logs=new-only", ...process.argv.slice(2)],
  { stdio: "inherit", cwd: root, env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1" } }
)
const summary = spawnSync("node", [join(root, "scripts/test-summary.mjs"), ...(turbo.status === 0 ? [] : ["--pipeline-failed"])], {
  stdio: "inherit",
  cwd: root
})
process.exit(turbo.status !== 0 ? turbo.status ?? 1 : summary.status ?? 1)
