const pct = (x) => `${(100 * x).toFixed(1)}%`
const f = (x, d = 2) => Number(x).toFixed(d)

const variantTable = (v) => `### ${v.name}

| | pool (independent fibers) | waves of N (reference) |
|---|---|---|
| client in-flight limit / wave size | ${v.pool.clientInFlightLimit} | ${v.waves.clientInFlightLimit} |
| wall time | ${f(v.pool.wallSeconds, 1)} s | ${f(v.waves.wallSeconds, 1)} s |
| LLM calls | ${v.pool.llmCalls} | ${v.waves.llmCalls} |
| calls/s | **${f(v.pool.callsPerSecond, 1)}** | ${f(v.waves.callsPerSecond, 1)} |
| questions/s | ${f(v.pool.questionsPerSecond, 2)} | ${f(v.waves.questionsPerSecond, 2)} |
| batch occupancy while ≥ max_num_seqs questions remain | **${pct(v.pool.occupancyWhileWorkRemains)}** | ${pct(v.waves.occupancyWhileWorkRemains)} |
| batch occupancy, whole run | ${pct(v.pool.occupancyWholeRun)} | ${pct(v.waves.occupancyWholeRun)} |
| simulator max running / max running+waiting | ${v.pool.simMaxRunning} / ${v.pool.simMaxInSystem} | ${v.waves.simMaxRunning} / ${v.waves.simMaxInSystem} |
| simulated GPU time (sum of nominal step times) | ${f(v.pool.simBusySeconds, 1)} s | ${f(v.waves.simBusySeconds, 1)} s |
| calls per simulated GPU second | ${f(v.pool.callsPerSimBusySecond, 1)} | ${f(v.waves.callsPerSimBusySecond, 1)} |
| generated tokens | ${v.pool.generationTokens} | ${v.waves.generationTokens} |
| generated tokens/s | ${f(v.pool.generationTokens / v.pool.wallSeconds, 0)} | ${f(v.waves.generationTokens / v.waves.wallSeconds, 0)} |
| client CPU per call (whole pipeline) | ${f(v.pool.clientCpuMsPerCall, 3)} ms | ${f(v.waves.clientCpuMsPerCall, 3)} ms |
| answers containing the gold answer | ${v.pool.correct}/${v.pool.questions} | ${v.waves.correct}/${v.waves.questions} |
| calls per question (count of questions) | ${JSON.stringify(v.pool.callsPerQuestion)} | ${JSON.stringify(v.waves.callsPerQuestion)} |

Throughput ratio pool / waves: **${f(v.throughputRatio, 2)}×** in calls per wall second, **${f(v.simTimeThroughputRatio, 2)}×** per simulated GPU second, ${f((v.pool.generationTokens / v.pool.wallSeconds) / (v.waves.generationTokens / v.waves.wallSeconds), 2)}× in generated tokens per second.
`

/** results.md from results.json. */
export const renderMarkdown = (r) => `# LLM client benchmark — results

Run ${r.started} · Node ${r.machine.node} · ${r.machine.cpus} CPUs · load average ${f(r.machine.loadAverageAtStart, 1)} at start, ${f(r.machine.loadAverageAtEnd, 1)} at end
(the machine is shared; CPU figures move with its load).

Workload: ${r.workload.questions} DeepNote questions (profile ${r.workload.profile}, top-k ${r.workload.topK}, max step ${r.workload.maxStep}, max failure ${r.workload.maxFailure}),
full pipeline (core \`answerQuestion\`, the LLM roles of @deepnote/llm, an in-memory retriever), against the simulator in a child process:
max_num_seqs ${r.workload.maxNumSeqs}, step base ${r.workload.stepBaseMs} ms, ${r.workload.tokensPerStep} token(s) per sequence per step, ${r.workload.content} content.

${r.variants.map((v) => variantTable(v)).join("\n")}
Client CPU per call, LLM client alone (judge-sized calls at concurrency ${r.workload.maxNumSeqs}, same simulator; both paths warmed
with 2000 calls, then ${r.clientOverhead.rounds.length} interleaved rounds of ${r.clientOverhead.calls} calls each; the median round is shown):

| | CPU per call | calls/s |
|---|---|---|
| raw \`HttpClient\` request with \`Effect.timeout\` (same body, same pooled undici Agent) | ${f(r.clientOverhead.rawHttpClient.cpuMsPerCall, 3)} ms | ${f(r.clientOverhead.rawHttpClient.callsPerSecond, 0)} |
| \`LlmClient.chat\` (routing, limits, retries, spans, schema decode, ledger) | ${f(r.clientOverhead.llmClient.cpuMsPerCall, 3)} ms | ${f(r.clientOverhead.llmClient.callsPerSecond, 0)} |
| LlmClient's own overhead | ${f(r.clientOverhead.overheadMsPerCall, 3)} ms | |

Rounds (raw / LlmClient, ms CPU per call): ${r.clientOverhead.rounds.map((x) => `${f(x.rawCpuMsPerCall, 3)} / ${f(x.llmClientCpuMsPerCall, 3)}`).join(" · ")}

## Targets

| target | value | met |
|---|---|---|
| occupancy ≥ 90% while work remains (${r.variants[0].name}) | ${pct(r.targets.occupancyWhileWorkRemains.value)} | ${r.targets.occupancyWhileWorkRemains.met ? "yes" : "no"} |
| ≥ 1.5× the waves strategy's throughput (${r.variants[0].name}) | ${f(r.targets.throughputVsWaves.value, 2)}× | ${r.targets.throughputVsWaves.met ? "yes" : "no"} |
| client CPU ≤ 1 ms per call (LlmClient) | ${f(r.targets.llmClientCpuMsPerCall.value, 3)} ms | ${r.targets.llmClientCpuMsPerCall.met ? "yes" : "no"} |
| client CPU ≤ 1 ms per call (whole pipeline, informational) | ${f(r.targets.pipelineCpuMsPerCall.value, 3)} ms | ${r.targets.pipelineCpuMsPerCall.met ? "yes" : "no"} |
`
