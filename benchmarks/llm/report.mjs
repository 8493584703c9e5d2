// results.md from results.json (run.mjs).
const pct = (x) => `${(100 * x).toFixed(1)}%`
const f = (x, d = 2) => Number(x).toFixed(d)
const range = (s, fmt) => `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`
const ratio = (s) => `**${f(s.median)}×** (${f(s.min)}–${f(s.max)})`

const summaryTable = (r) => `| strategy | calls/s | calls per simulated GPU s | occupancy while ≥ max_num_seqs questions remain | occupancy, whole run | pool ÷ this, wall | pool ÷ this, per simulated GPU s |
|---|---|---|---|---|---|---|
${r.summary.map((s) => `| ${s.strategy} | ${range(s.callsPerSecond, (x) => f(x, 1))} | ${range(s.callsPerSimBusySecond, (x) => f(x, 1))} | ${range(s.occupancyWhileWorkRemains, pct)} | ${range(s.occupancyWholeRun, pct)} | ${s.ratioWall ? ratio(s.ratioWall) : "–"} | ${s.ratioSimGpu ? ratio(s.ratioSimGpu) : "–"} |`).join("\n")}`

const repeatTable = (rep) => `| strategy | load avg | wall s | calls | generated tokens | calls/s | calls per sim GPU s | occupancy (work remains / whole) | client CPU per call | pool ÷ this (wall / sim GPU) |
|---|---|---|---|---|---|---|---|---|---|
${rep.runs.map((x) => `| ${x.strategy} | ${f(x.loadAverage, 1)} | ${f(x.wallSeconds, 1)} | ${x.llmCalls} | ${x.generationTokens} | ${f(x.callsPerSecond, 1)} | ${f(x.callsPerSimBusySecond, 1)} | ${pct(x.occupancyWhileWorkRemains)} / ${pct(x.occupancyWholeRun)} | ${f(x.clientCpuMsPerCall, 2)} ms | ${x.strategy === "pool" ? "–" : `${f(rep.ratios[x.strategy].wall)}× / ${f(rep.ratios[x.strategy].simGpu)}×`} |`).join("\n")}`

/** results.md from results.json. */
export const renderMarkdown = (r) => `# LLM client benchmark — pool vs waves — results

Run ${r.started} to ${r.finished} · Node ${r.machine.node} · ${r.machine.cpus} CPUs · load average (1/5/15 min)
${r.machine.loadAverageAtStart.map((x) => f(x, 1)).join(" / ")} at start, ${r.machine.loadAverageAtEnd.map((x) => f(x, 1)).join(" / ")} at end (the machine is shared).

Workload: ${r.workload.questions} DeepNote questions (profile ${r.workload.profile}, top-k ${r.workload.topK}, max step
${r.workload.maxStep}, max failure ${r.workload.maxFailure}), the full pipeline (core \`answerQuestion\`, the LLM roles of @deepnote-rag/llm,
an in-memory retriever) against the simulator in a child process, a fresh one per run: max_num_seqs ${r.workload.maxNumSeqs}, step
${r.workload.stepBaseMs} ms, ${r.workload.tokensPerStep} tokens per sequence per step, ${r.workload.content} content, extra reply tokens
exponential per role (${r.workload.replyExtraByRole}) drawn from a hash of each prompt (the same draws for every strategy).
${r.workload.repeats} repeats; each repeat runs the pool and every wave size once (order rotated between repeats); ratios are
taken within a repeat. Median (min–max over repeats):

${summaryTable(r)}

Same answers and calls in every strategy: ${r.repeats.every((x) => x.sameAnswers) ? "yes (every repeat)" : `no (repeats ${r.repeats.filter((x) => !x.sameAnswers).map((x) => x.repeat).join(", ")})`}.

${r.repeats.map((rep) => `## Repeat ${rep.repeat} (order: ${rep.order.join(", ")})

${repeatTable(rep)}
`).join("\n")}`
