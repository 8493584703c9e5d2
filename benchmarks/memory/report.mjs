// Renders benchmarks/memory/results.md from before.json and after.json (written by run.mjs), and checks that every
// output of `after` equals `before` byte for byte (same sha256).
//   node benchmarks/memory/report.mjs
import * as Fs from "node:fs"
import * as Path from "node:path"

const here = Path.dirname(new URL(import.meta.url).pathname)
const load = (label) => JSON.parse(Fs.readFileSync(Path.join(here, `${label}.json`), "utf8"))
const before = load("before")
const after = load("after")
const sizes = Object.keys(after.sizes).map(Number).sort((a, b) => a - b)
const commands = [
  ["eval", "`eval RUN`"],
  ["evalJsonPerItem", "`eval RUN --format json --per-item`"],
  ["exportFile", "`export RUN -o FILE`"],
  ["exportStdout", "`export RUN` (stdout, a pipe)"]
]
const cell = (m) => (m === undefined ? "–" : m.failed !== undefined ? "fails (heap limit)" : `${m.peakMiB}`)
const n = (x) => x.toLocaleString("en-US")

const lines = [
  "# Peak RSS of `eval` and `export` against run size",
  "",
  `Before: ${before.commit} (${before.date.slice(0, 16)}Z, load ${before.load}); after: ${after.commit} (${
    after.date.slice(0, 16)
  }Z, load ${after.load}); ${after.node}. One process per command, peak RSS (MiB) from \`/usr/bin/time\`.`,
  "Runs: real extractive results (HotpotQA dev, ~20 KB of result JSON per question) copied into runs of N questions",
  "(`make-runs.mjs`); 1 in 100 failed.",
  "",
  `| command | ${sizes.map((s) => `${n(s)}: before → after`).join(" | ")} |`,
  `|---|${sizes.map(() => "---|").join("")}`
]
for (const [key, title] of commands) {
  lines.push(`| ${title} | ${sizes.map((s) => `${cell(before.sizes[s]?.[key])} → ${cell(after.sizes[s][key])}`).join(" | ")} |`)
}
const largest = sizes.at(-1)
lines.push(
  "",
  `With V8's old space capped at ${after.heapCapMiB} MiB (\`node --max-old-space-size=${after.heapCapMiB}\`), ${
    n(largest)
  } questions:`,
  "",
  "| command | before | after |",
  "|---|---|---|",
  `| \`eval RUN\` | ${cell(before.sizes[largest]?.evalCapped)} | ${cell(after.sizes[largest].evalCapped)} |`,
  `| \`export RUN -o FILE\` | ${cell(before.sizes[largest]?.exportCapped)} | ${cell(after.sizes[largest].exportCapped)} |`
)
const same = []
const different = []
for (const s of sizes) {
  for (const [key] of commands) {
    const b = before.sizes[s]?.[key]
    if (b === undefined) continue
    ;(b.sha256 === after.sizes[s][key].sha256 ? same : different).push(`${key}@${s}`)
  }
}
lines.push(
  "",
  `Outputs byte for byte equal before and after: ${same.length} of ${same.length + different.length}${
    different.length === 0 ? "" : ` (different: ${different.join(", ")})`
  }.`,
  "",
  `CPU seconds (user + system), before → after (${sizes.map(n).join(" / ")}): ${
    commands.map(([key]) =>
      `${key} ${sizes.map((s) => `${before.sizes[s]?.[key]?.cpuS ?? "–"} → ${after.sizes[s][key].cpuS}`).join(" / ")}`
    ).join("; ")
  }. Wall times are not comparable: the machine was shared (load in the header).`,
  ""
)
Fs.writeFileSync(Path.join(here, "results.md"), lines.join("\n"))
console.log(lines.join("\n"))
if (different.length > 0) process.exitCode = 1
