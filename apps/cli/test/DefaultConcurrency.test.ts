import { start } from "@deepnote-rag/llm-sim"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { indexedHome, llmArgs, runCli, sampleRunArgs } from "./RunCli.js"

const runIdOf = (stdout: string) => /run (r-[0-9a-z-]+)/.exec(stdout)?.[1] ?? ""

interface Shown {
  readonly manifest: { readonly concurrency?: number; readonly concurrencyReason?: string }
}

describe("questions in flight follow the LLM endpoints' capacity (two simulators)", () => {
  it.scopedLive(
    "the default is the servers' max_num_seqs + headroom, printed and recorded; --concurrency wins",
    () =>
      Effect.gen(function*() {
        const a = yield* start({ maxNumSeqs: 8 })
        const b = yield* start({ maxNumSeqs: 8 })
        const home = yield* indexedHome
        const flags = ["--limit", "1", "--max-step", "1", "--max-failure", "1", "--quiet"]
        const run = yield* runCli(sampleRunArgs(home, ...llmArgs([a.url, b.url]), ...flags))
        assert.strictEqual(run.code, 0, run.stderr)
        const line = "concurrency 18 (2 endpoints × max_num_seqs 8 from /v1/models, + 2 headroom)"
        assert.include(run.stderr, line)
        const status = yield* runCli(["status", runIdOf(run.stdout), "--json", "--home", home])
        const shown = JSON.parse(status.stdout) as Shown
        assert.strictEqual(shown.manifest.concurrency, 18)
        assert.strictEqual(shown.manifest.concurrencyReason, line.slice("concurrency 18 (".length, -1))

        const flag = yield* runCli(sampleRunArgs(home, "--limit", "1", "--concurrency", "3", "--quiet"))
        assert.strictEqual(flag.code, 0, flag.stderr)
        assert.include(flag.stderr, "concurrency 3 (--concurrency)")
      }),
    { timeout: 120_000 }
  )
})
