// Writes results.md from results.json (every label side by side, then each label's profile).
import * as Fs from "node:fs"

const f2 = (x) => x.toFixed(2)
const spread = (s, f = f2) => `**${f(s.median)}** (${f(s.min)}–${f(s.max)})`
const kb = (x) => (x / 1024).toFixed(1)

export const writeReport = (all, file) => {
  const labels = Object.keys(all)
  const lines = [
    "# CPU per LLM call and store size of `deepnote run --engine llm`",
    "",
    "Written by `node benchmarks/cpu/run.mjs` (see README.md). Simulator with zero step time in its own process;",
    "CPU = user + sys of the whole `deepnote run` process (`/usr/bin/time`); marginal = net of start-up",
    "(`deepnote run --help`, the command line loaded; labels before `before-w3`: `deepnote --version`). Median (min–max) of the repetitions.",
    "Node 20 unless the commit column names another version.",
    "",
    "CPU ms / additional call: (CPU of the run − CPU of the same variant at fewer questions) / (the calls in between), each",
    "repetition's pair: one more call once the process is warm (labels from `slope-s27` on, `--slope-from`).",
    "",
    "Bare client: the CPU ms per call of `bare-client.mjs` sending again the requests one run of the measured checkout made (undici",
    "only), in each repetition; × bare: the whole-process CPU per call as a multiple of it, per repetition (labels from",
    "`floor-s36` on).",
    "",
    "| label | commit | questions | LLM calls | CPU ms / call, marginal | CPU ms / additional call | CPU ms / call, whole process | bare client CPU ms / call | × bare client | LLM calls per CPU s | wall s | peak RSS MB | store KB / question | load |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  ]
  for (const l of labels) {
    const r = all[l]
    const calls = r.runs.map((x) => x.llmCalls).join(", ")
    const wall = r.runs.map((x) => x.wallS).join(", ")
    const rss = r.runs.map((x) => x.peakRssMb).join(", ")
    lines.push(
      `| ${l} | ${r.commit}${r.node === undefined ? "" : `, Node ${r.node.slice(1)}`}${r.nodeArgs === undefined ? "" : ` (node ${r.nodeArgs})`} | ${r.questions} | ${calls} | ${spread(r.marginalCpuMsPerCall)} | ${r.additionalCpuMsPerCall === undefined ? "—" : `${spread(r.additionalCpuMsPerCall)} (from ${r.slopeFrom})`} | ${spread(r.cpuMsPerCall)} | ` +
        `${r.floorCpuMsPerCall === undefined ? "—" : spread(r.floorCpuMsPerCall)} | ${r.timesFloor === undefined ? "—" : spread(r.timesFloor, (x) => x.toFixed(1))} | ` +
        `${spread(r.callsPerCpuS, (x) => x.toFixed(0))} | ${wall} | ${rss} | ${spread(r.storeBytesPerQuestion, kb)} | ${r.loadAverage} |`
    )
  }
  for (const l of labels) {
    const r = all[l]
    const tables = r.runs[0].tables
    if (tables) {
      lines.push("", `## ${l}: store bytes per question by table (first run)`, "", "| table or index | KB / question |", "|---|---|")
      for (const [name, bytes] of Object.entries(tables)) lines.push(`| ${name} | ${kb(bytes / r.questions)} |`)
    }
    if (!r.profile) continue
    lines.push("", `## ${l}: profile (node --cpu-prof, one run, ${r.profile.busySamples} busy samples)`, "")
    lines.push("| area (self time) | share % |", "|---|---|")
    for (const a of r.profile.areas.slice(0, 12)) lines.push(`| ${a.name} | ${a.share} |`)
    lines.push("", "| function (self time) | share % |", "|---|---|")
    for (const fn of r.profile.functions) lines.push(`| \`${fn.name}\` | ${fn.share} |`)
  }
  Fs.writeFileSync(file, lines.join("\n") + "\n")
}
