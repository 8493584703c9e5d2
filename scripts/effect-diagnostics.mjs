// Runs the Effect language service's diagnostics (floating Effects, missing yields, wrong layer wiring, …) over every
// workspace source and test file and fails on any error-level finding. Part of `npm run lint`. The CLI's project
// references every other package (sources and tests), so checking it checks them all.
import { spawnSync } from "node:child_process"

const result = spawnSync(
  "npx",
  ["effect-language-service", "diagnostics", "--project", "apps/cli/tsconfig.json", "--severity", "error", "--format", "text"],
  { encoding: "utf8" }
)
const output = `${result.stdout ?? ""}`
const summary = /(\d+) errors?, (\d+) warnings?/.exec(output)
const errors = summary ? Number(summary[1]) : result.status === 0 ? 0 : -1
if (errors !== 0) {
  process.stdout.write(output)
  process.stdout.write(`effect diagnostics: ${errors < 0 ? "could not run" : `${errors} error(s)`}\n`)
  process.exit(1)
}
process.stdout.write(`effect diagnostics: clean (${/Checked (\d+) files/.exec(output)?.[1] ?? "?"} files)\n`)
