// Renders citizen-results.json as markdown.
const f0 = (x) => (Number.isFinite(x) ? x.toFixed(0) : "–")
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : "–")
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : "–")
const pct = (x) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : "–")
const range = (s, f) => `${f(s.median)} (${f(s.min)}–${f(s.max)})`

/** A phase measured in another invocation than the header's says when, and at what load. */
const dated = (phase) =>
  phase.measured === undefined
    ? ""
    : ` (measured ${phase.measured.at}, load ${f1(phase.measured.loadAverageAtStart)} → ${
      f1(phase.measured.loadAverageAtEnd)
    })`

export const renderCitizen = (r) => {
  const out = [
    `# LLM client on shared servers: updated ${r.started} (each section says when it was measured)`,
    "",
    `${r.machine.cpus} cores, node ${r.machine.node}, load average ${f1(r.machine.loadAverageAtStart)} → ${
      f1(r.machine.loadAverageAtEnd)
    }; ${r.repeats} repeats, medians with the range over repeats in parentheses; ratios are taken within one repeat.`,
    "",
    `Server: \`deepnote-llm-sim ${r.server}\` (a child process).`,
    ""
  ]
  if (r.solo) {
    out.push(
      `## Solo: one client, 200 closed-loop workers, its own server (max_num_seqs 64)${dated(r.solo)}`,
      "",
      "| limit | generated tokens/s | occupancy | waiting p95 | final limit |",
      "|---|---|---|---|---|"
    )
    for (const [name, s] of Object.entries(r.solo.summary)) {
      out.push(
        `| ${name} | ${range(s.tokensPerSecond, f0)} | ${range(s.occupancy, pct)} | ${range(s.waitingP95, f0)} | ${
          range(s.finalLimit, f1)
        } |`
      )
    }
    out.push(
      "",
      `Adaptive over the best static limit (${r.solo.bestStatic}): ${range(r.solo.adaptiveOverBestStatic, f2)}.`,
      ""
    )
  }
  if (r.shared) {
    out.push(
      `## Shared: two clients (150 workers each) and a background client on one server${dated(r.shared)}`,
      "",
      `Server: \`${r.shared.server}\`.`,
      "",
      "| clients | worst deviation from an equal share | pre-emptions (20 s) | both clients' tokens/s | occupancy |",
      "|---|---|---|---|---|"
    )
    for (const [name, s] of Object.entries(r.shared.summary)) {
      out.push(
        `| ${name} | ${range(s.worstDeviationFromEqualShare, pct)} | ${range(s.preemptions, f0)} | ${
          range(s.totalTokensPerSecond, f0)
        } | ${range(s.occupancy, pct)} |`
      )
    }
    out.push("")
  }
  if (r.priority) {
    out.push(
      `## Priority: interactive calls while a batch backlog (200 workers) saturates the server${dated(r.priority)}`,
      "",
      "| setup | interactive p95 latency (ms) |",
      "|---|---|"
    )
    for (const [name, s] of Object.entries(r.priority.summary)) out.push(`| ${name} | ${range(s, f0)} |`)
    out.push(
      "",
      `p95 without / with priorities: one process ${range(r.priority.p95Improvement["one process"], f1)}×, two processes ${
        range(r.priority.p95Improvement["two processes"], f1)
      }×.`,
      ""
    )
  }
  if (r.storm) {
    out.push(
      `## Storm: 30% of requests answered 429, 503 or 529 (64 workers, 30 s)${dated(r.storm)}`,
      "",
      "| | calls | lost | attempts | retries / attempts | retries / calls |",
      "|---|---|---|---|---|---|"
    )
    r.storm.rounds.forEach((x, i) =>
      out.push(
        `| repeat ${i + 1} | ${x.calls} | ${x.lost} | ${x.attempts} | ${pct(x.retriesPerAttempt)} | ${pct(x.retriesPerCall)} |`
      )
    )
    out.push("")
  }
  if (r.overload) {
    out.push(
      `## Overload: a storm the clients cause (200 workers, 30 s)${dated(r.overload)}`,
      "",
      `Server: \`${r.overload.server}\` — it answers 429, 503 or 529 to new requests while 8 wait beyond its batch.`,
      "",
      "| client | calls/s | lost | retries / calls | overload answers | final limit |",
      "|---|---|---|---|---|---|"
    )
    for (const [name, s] of Object.entries(r.overload.summary)) {
      out.push(
        `| ${name} | ${range(s.callsPerSecond, f1)} | ${range(s.lost, f0)} | ${range(s.retriesPerCall, pct)} | ${
          range(s.shed, f0)
        } | ${range(s.finalLimit, f1)} |`
      )
    }
    out.push("")
  }
  if (r.outage) {
    out.push(
      `## Outage: 100 questions of 8 calls, all at once; the server unavailable for 15 s${dated(r.outage)}`,
      "",
      "| | failed questions | wall time (s) |",
      "|---|---|---|"
    )
    r.outage.rounds.forEach((round, i) => {
      for (const [name, x] of Object.entries(round)) {
        out.push(`| repeat ${i + 1}: ${name} | ${x.failed} of ${x.questions} | ${f1(x.wallSeconds)} |`)
      }
    })
    out.push("")
  }
  return out.join("\n")
}
