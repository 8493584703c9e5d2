// Adds up the vitest JSON reports every workspace package writes (`.vitest-results.json`, restored from turbo's cache
// for packages that did not change) and prints one plain line "N passed, N failed". Exits 1 when any test failed, a
// suite could not run, or no report was found. `.ci/run` ends with this line.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

const root = new URL("..", import.meta.url).pathname
let passed = 0
let failed = 0
let reports = 0
for (const group of ["packages", "apps"]) {
  for (const name of readdirSync(join(root, group))) {
    const file = join(root, group, name, ".vitest-results.json")
    if (!existsSync(join(root, group, name, "package.json")) || !existsSync(file)) continue
    const report = JSON.parse(readFileSync(file, "utf8"))
    reports++
    passed += report.numPassedTests
    const suiteErrors = (report.numRuntimeErrorTestSuites ?? 0) +
      (report.numFailedTestSuites > 0 && report.numFailedTests === 0 ? report.numFailedTestSuites : 0)
    failed += report.numFailedTests + suiteErrors
  }
}
// the build or lint failed (or a suite never reported): at least one failure, whatever the reports say
if (reports === 0 || process.argv.includes("--pipeline-failed")) failed = Math.max(failed, 1)
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed > 0 || passed === 0 ? 1 : 0)
