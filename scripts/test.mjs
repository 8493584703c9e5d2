// `npm test`: the whole tree compiled by one `tsc -b` (with the Effect diagnostics) beside lint (ESLint with the
// formatter over the whole tree in one process — one type-aware program instead of one per package, ~1 CPU-minute
// instead of ~3 — and the check that the Effect diagnostics are on), then every package's build and tests through turbo —
// a package whose inputs did not change is neither rebuilt nor retested (its report comes from turbo's cache) — then
// one plain line "N passed, N failed" over every package's report. Exits non-zero when anything failed: a test, a
// suite, the build or lint (then counted as one failure). A failing package does not stop the others (`--continue`):
// the summary counts every package that could run. Extra arguments go to turbo (e.g. `--force`); a `--filter` picks the
// packages whose tests run, while lint still covers the whole tree (its tasks are the root's, which a package filter
// would leave out — lint then did nothing; unchanged sources are a turbo cache hit).
import { spawn, spawnSync } from "node:child_process"
import { existsSync, readdirSync, rmSync } from "node:fs"
import { join } from "node:path"

const root = new URL("..", import.meta.url).pathname
for (const group of ["packages", "apps"]) {
  for (const name of readdirSync(join(root, group))) {
    const report = join(root, group, name, ".vitest-results.json")
    if (existsSync(report)) rmSync(report)
  }
}
// Two things at once first, neither needing the other: every package type-checked and compiled by one `tsc -b` over the
// whole tree (the root tsconfig.json references them all), with the Effect diagnostics (see
// scripts/effect-diagnostics.mjs), and lint through turbo (ESLint reads the sources). One compiler process shares the
// parsed declaration files (Effect's alone are ~200,000 lines) across the packages, where a process per package parses
// them again: ~80 CPU-seconds against ~200 for the tree. Then each package's build and tests through turbo: the build
// tasks find their project up to date (~1 s each; turbo keeps its per-package cache), and three tasks run at once (most
// test files wait on child processes and servers rather than on a core; four measured the same). A failed `tsc -b` is
// not counted: the failing package's build task reports it again. Whole `npm test -- --force`, quiet 2-core machine,
// nothing built: 11 min 26 s and 1,231 CPU-s with a process per package's `tsc`, the Effect diagnostics as a separate
// type-check and lint before everything; 8 min 40 s and 915 CPU-s this way (8 min 2 s and 868 CPU-s another day: the
// shared machine's noise). Tried and not kept: the tests that run from sources started beside tsc and lint (their turbo
// task behind a script-less "transit" task instead of the build): 8 min 0 s and 8 min 29 s against 8 min 2 s this way
// in the same hour — the run is CPU-bound (870–935 CPU-s on two cores), so the compiler, slowed from ~2 to ~3.3 min,
// just became the critical path; below it at nice 5 the moved tests starved later (8 min 41 s); started only once lint
// had ended, 8 min 21 s (tsc 2.8 min). Nor the CLI's tests (the longest package) started first, in a turbo run of their
// own beside one for the rest (two slots each): 9 min 9 s and 913 CPU-s against 8 min 9 s and 872 this way, one after
// the other — the server's and the simulator's suites then started last, and the server's (about one core busy) ran
// alone at the end, where the CLI's (nearly two cores) does now. Since the CLI's tests run most command lines inside
// their own process (apps/cli/README.md, "Tests"): 7 min 35 s and 784 CPU-s, the server's suite now the last to end.
const run = (command, args, env = process.env) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "inherit", cwd: root, env })
    child.on("close", (code) => resolve(code ?? 1))
  })
const turboEnv = { ...process.env, TURBO_TELEMETRY_DISABLED: "1" }
const extra = process.argv.slice(2)
const filterFlags = ["--filter", "-F"]
const isFilter = (arg, i) => arg.startsWith("--filter=") || filterFlags.includes(arg) || filterFlags.includes(extra[i - 1])
const pipelineArgs = ["--continue", "--log-order=grouped", "--output-logs=new-only"]
const turboArgs = [...pipelineArgs, ...extra]
const lintArgs = [...pipelineArgs, ...extra.filter((arg, i) => !isFilter(arg, i))]
const [typecheck, lint] = await Promise.all([
  run("npx", ["tsc", "-b"]),
  run("npx", ["turbo", "run", "eslint", "diagnostics", "--concurrency=2", ...lintArgs], turboEnv)
])
if (typecheck !== 0) console.log("tsc -b failed: the failing packages' build tasks below say where")
const tests = await run("npx", ["turbo", "run", "test", "--concurrency=3", ...turboArgs], turboEnv)
const failed = lint !== 0 ? lint : tests
const summary = spawnSync("node", [join(root, "scripts/test-summary.mjs"), ...(failed === 0 ? [] : ["--pipeline-failed"])], {
  stdio: "inherit",
  cwd: root
})
process.exit(failed !== 0 ? failed : summary.status ?? 1)
