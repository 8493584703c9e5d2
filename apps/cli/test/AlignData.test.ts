import { PreferencePair } from "@deepnote-rag/core"
import { start } from "@deepnote-rag/llm-sim"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { killAndCountInFlight, spawnCli, untilSimRequests } from "./CrashHarness.js"
import { indexedHome, llmArgs, llmUrlArgs, runCli, sampleDatasetArgs, sampleQuestions, tempHome } from "./RunCli.js"

const runIdOf = (stdout: string) => /run (r-[0-9a-z-]+)/.exec(stdout)?.[1]

const decode = Schema.decodeUnknownSync(Schema.parseJson(PreferencePair))

/**
 * The pairs of a file, each checked as a DPO trainer needs it: valid against the schema (TRL's conversational
 * format), chosen ≠ rejected, one prompt (system, then the user turn holding the question) for both.
 */
const checkedPairs = (file: string) => {
  const questions = Fs.readFileSync(sampleQuestions, "utf8").trim().split("\n").map((l) =>
    JSON.parse(l) as { id: string; question: string }
  )
  const lines = Fs.readFileSync(file, "utf8").trim().split("\n")
  return lines.map((line) => {
    const pair = decode(line)
    assert.notStrictEqual(pair.chosen[0].content, pair.rejected[0].content)
    assert.deepStrictEqual(pair.prompt.map((m) => m.role), ["system", "user"])
    const question = questions.find((q) => q.id === pair.meta.question_id)
    assert.isDefined(question)
    assert.include(pair.prompt[1]!.content, question!.question)
    return pair
  })
}

const alignArgs = (home: string, output: string, ...more: ReadonlyArray<string>) =>
  sampleDatasetArgs("align-data", home, "-o", output, "--quiet", ...more)

describe("deepnote align-data", () => {
  it.scopedLive("extractive: valid pairs for every role, a card, a run in status; --from-run rewrites with a mix", () =>
    Effect.gen(function*() {
      const home = yield* indexedHome
      const output = Path.join(home, "pairs.jsonl")
      const made = yield* runCli(alignArgs(home, output, "--limit", "8"))
      assert.strictEqual(made.code, 0, made.stderr)
      assert.match(made.stdout, /init: \d+ pairs of 8 questions/)
      const pairs = checkedPairs(output)
      assert.deepStrictEqual([...new Set(pairs.map((p) => p.role))].sort(), ["answer", "init", "plan", "update"])
      const card = Fs.readFileSync(Path.join(home, "pairs.card.md"), "utf8")
      assert.include(card, "# DNAlign preference pairs")
      assert.include(card, "learning rate 5e-7, β 0.1, batch 8")
      const runId = runIdOf(made.stdout)!
      const status = yield* runCli(["status", runId, "--home", home])
      assert.match(status.stdout, /align\/extractive init,plan,update,answer ×9 k 3\.\.9/)
      assert.match(status.stdout, /update: \d+ pairs of 8 questions/)

      const mixed = Path.join(home, "mixed.jsonl")
      const rewritten = yield* runCli([
        "align-data",
        "--from-run",
        runId,
        "-o",
        mixed,
        "--split-roles",
        "--mix",
        "init=2,answer=1",
        "--home",
        home
      ])
      assert.strictEqual(rewritten.code, 0, rewritten.stderr)
      assert.strictEqual(checkedPairs(Path.join(home, "mixed.init.jsonl")).length, 2)
      assert.strictEqual(checkedPairs(Path.join(home, "mixed.answer.jsonl")).length, 1)
      assert.strictEqual(Fs.readFileSync(Path.join(home, "mixed.plan.jsonl"), "utf8"), "")
    }))

  it.scopedLive("bad flags: one clear line and the usage exit code", () =>
    Effect.gen(function*() {
      // every flag is checked before the collection is opened: an empty home will do
      const home = yield* tempHome
      const out = Path.join(home, "p.jsonl")
      const rows: ReadonlyArray<readonly [ReadonlyArray<string>, RegExp]> = [
        [alignArgs(home, out, "--roles", "init,critic"), /--roles: unknown role "critic"/],
        [alignArgs(home, out, "--samples", "1"), /--samples must be between 2 and 1000/],
        [alignArgs(home, out, "--sampling-grid", "top_k=3"), /--sampling-grid: unknown key "top_k"/],
        [alignArgs(home, out, "--sampling-grid", "temperature=0.1,hot"), /"hot" is not a number/],
        [alignArgs(home, out, "--top-k-range", "9..3"), /--top-k-range 9\.\.3: expected MIN\.\.MAX/],
        [alignArgs(home, out, "--mix", "half"), /--mix half: expected all, paper or ROLE=COUNT/],
        [alignArgs(home, out, "--profile", "renact"), /align-data samples the note loop's roles/],
        [alignArgs(home, Path.join(home, "missing", "p.jsonl")), /the directory .* does not exist/],
        [["align-data", "-c", "sample", "--home", home, "-o", out], /--dataset FILE is required/],
        [["align-data", "--dataset", sampleQuestions, "--home", home], /-o\/--output FILE is required/]
      ]
      const results = yield* Effect.forEach(rows, ([argv]) => runCli(argv), { concurrency: 2 })
      for (const [i, [argv, message]] of rows.entries()) {
        const result = results[i]!
        assert.strictEqual(result.code, 2, `${argv.join(" ")}: ${result.stderr}`)
        const lines = result.stderr.trim().split("\n")
        assert.strictEqual(lines.length, 1, result.stderr)
        assert.match(lines[0]!, message)
      }
    }), { timeout: 120_000 })

  it.scopedLive(
    "LLM engine against the simulator: killed (SIGKILL) mid-run and resumed, the same pairs as an uninterrupted run, no finished call re-sent",
    () =>
      Effect.gen(function*() {
        // several tokens per step: notes are long, and the test is about calls, not decoding speed
        const sim = yield* start({ stepBaseMs: 1, maxNumSeqs: 16, tokensPerStep: 8 })
        const home = yield* indexedHome
        const common = ["--limit", "5", "--concurrency", "5", ...llmArgs(`${sim.url}/v1`, { cache: false })]
        const reference = yield* runCli(alignArgs(home, Path.join(home, "reference.jsonl"), ...common))
        assert.strictEqual(reference.code, 0, reference.stderr)
        const referenceCalls = sim.metrics.requests
        const expected = checkedPairs(Path.join(home, "reference.jsonl"))
        assert.isAbove(expected.length, 5)
        assert.isTrue(expected.every((p) => p.meta.judge.model === "deepnote-sim" || p.meta.judge.method === "metric"))

        const output = Path.join(home, "resumed.jsonl")
        const child = spawnCli(alignArgs(home, output, ...common))
        const alive = yield* untilSimRequests(sim, referenceCalls + Math.floor(referenceCalls / 2), child)
        assert.isTrue(alive, "the run finished before the kill")
        const killed = yield* killAndCountInFlight(
          sim,
          child,
          "SIGKILL",
          { requests: referenceCalls, journaled: 0 },
          home,
          () => runIdOf(child.stdout())
        )
        assert.isFalse(Fs.existsSync(output), "no pairs are written before the run completes")
        const runId = runIdOf(child.stdout())!
        const resumed = yield* runCli([
          "resume",
          runId,
          "--home",
          home,
          "--quiet",
          ...llmUrlArgs(`${sim.url}/v1`, { cache: false })
        ])
        assert.strictEqual(resumed.code, 0, resumed.stderr)
        assert.match(resumed.stdout, /wrote \d+ pairs to .*resumed\.jsonl/)
        assert.deepStrictEqual(
          Fs.readFileSync(output, "utf8"),
          Fs.readFileSync(Path.join(home, "reference.jsonl"), "utf8"),
          "identical pairs"
        )
        // a journaled call is never sent again: the extra calls are at most those in flight at the kill
        const resent = sim.metrics.requests - 2 * referenceCalls
        assert.isAtLeast(resent, 0)
        assert.isAtMost(resent, killed.inFlight, `re-sent ${resent}, ${killed.inFlight} in flight at the kill`)
      }),
    { timeout: 180_000 }
  )
})
