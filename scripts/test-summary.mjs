// Adds up the vitest JSON reports every workspace package writes (`.vitest-results.json`, restored from turbo's cache
// for packages that did not change) and prints one plain line "N passed, N failed". Before it, one line per failed test
// or suite that could not run, `failed test: <package> <file> › <test>: <first line of the error>`, so a CI log's last
// lines name what failed. Exits 1 when any test failed, a suite could not run, or no report was found. `.ci/run` ends
// with the summary line.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"

const root = new URL("..", import.meta.url).pathname
let passed = 0
let failed = 0
let reports = 0
const failures = []
// the first line of an error message that says something, cut to a CI log's width
const firstLine = (message) =>
  (String(message ?? "").split("\n").map((line) => line.trim()).find((line) => line.length > 0) ?? "no message")
    .slice(0, 240)
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
    for (const suite of report.testResults ?? []) {
      const where = `${group}/${name} ${relative(join(root, group, name), suite.name ?? "")}`
      const failedTests = (suite.assertionResults ?? []).filter((test) => test.status === "failed")
      for (const test of failedTests) {
        failures.push(`failed test: ${where} › ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`)
      }
      if (suite.status === "failed" && failedTests.length === 0) {
        failures.push(`failed test: ${where} (the file did not run): ${firstLine(suite.message)}`)
      }
    }
  }
}
// the build or lint failed (or a suite never reported): at least one failure, whatever the reports say
if (reports === 0 || process.argv.includes("--pipeline-failed")) failed = Math.max(failed, 1)
for (const failure of failures) console.log(failure)
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed > 0 || passed === 0 ? 1 : 0)
