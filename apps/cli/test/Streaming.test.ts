import { start } from "@deepnote-rag/llm-sim"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { indexedHome, llmArgs, main, repoRoot, runCli, sampleAskArgs, sampleCorpus, tempHome } from "./RunCli.js"

interface Timed {
  readonly text: string
  readonly at: number
}

/** Runs the CLI and keeps each piece of its stderr with the time it arrived, and when the process ended. */
const runTimed = (args: ReadonlyArray<string>) =>
  Effect.async<{ code: number; stdout: string; stderr: ReadonlyArray<Timed>; endedAt: number }>((resume) => {
    const child = spawn(process.execPath, [main, ...args], { cwd: repoRoot, env: { NO_COLOR: "1" } })
    const stderr: Array<Timed> = []
    let stdout = ""
    child.stdout.on("data", (data: Buffer) => void (stdout += data.toString()))
    child.stderr.on("data", (data: Buffer) => void stderr.push({ text: data.toString(), at: performance.now() }))
    child.on("close", (code) => resume(Effect.succeed({ code: code ?? 1, stdout, stderr, endedAt: performance.now() })))
    return Effect.sync(() => void child.kill())
  })

describe("the terminal as things happen (child process)", () => {
  it.scopedLive(
    "ask prints each step as it happens and streams the answer's tokens; --json is unchanged",
    () =>
      Effect.gen(function*() {
        // 10 ms per decode step: each step and each token of the answer takes visible time
        const sim = yield* start({ stepBaseMs: 10 })
        const home = yield* indexedHome
        const args = sampleAskArgs("Who directed Big Stone Gap?", home, ...llmArgs(sim.url), "--max-step", "2")
        const asked = yield* runTimed(args)
        assert.strictEqual(asked.code, 0, asked.stderr.map((t) => t.text).join(""))
        const stderr = asked.stderr.map((t) => t.text).join("")
        for (const line of ["· step 0: read", "· step 0: wrote the first note", "· step 1: planned", "verdict"]) {
          assert.include(stderr, line)
        }
        // the steps arrived over time, not in one write at the end
        const firstStep = asked.stderr.find((t) => t.text.includes("step 0: read"))!
        const answerStart = asked.stderr.findIndex((t) => t.text.includes("answer: "))
        assert.isAtLeast(answerStart, 0, stderr)
        assert.isAbove(asked.stderr[answerStart]!.at - firstStep.at, 0)
        // the answer's tokens arrive in several writes, and are the answer the final block prints
        const answerPieces = asked.stderr.slice(answerStart)
        assert.isAbove(answerPieces.length, 1, "the answer streamed token by token")
        const streamed = answerPieces.map((t) => t.text).join("").split("answer: ")[1]!.trim()
        assert.include(asked.stdout, "Question: Who directed Big Stone Gap?")
        assert.include(asked.stdout, streamed.split("\n")[0]!.trim())

        const json = yield* runCli([...args, "--json"])
        assert.strictEqual(json.code, 0, json.stderr)
        assert.notInclude(json.stderr, "step 0")
        assert.strictEqual((JSON.parse(json.stdout) as { engine: string }).engine, "llm")
      }),
    { timeout: 120_000 }
  )

  it.scopedLive(
    "index prints progress lines (rows, rate, ETA) when stderr is not a terminal",
    () =>
      Effect.gen(function*() {
        const home = yield* tempHome
        const out = yield* runCli(["index", ...sampleCorpus, "--collection", "sample", "--home", home, "--json"], {
          DEEPNOTE_PROGRESS_INTERVAL: "0 millis"
        })
        assert.strictEqual(out.code, 0, out.stderr)
        const lines = out.stderr.split("\n").filter((l) => l.startsWith("index "))
        assert.isAtLeast(lines.length, 2, out.stderr)
        for (const line of lines) {
          assert.match(
            line,
            /^index \[\d\/2\] \S+: \d+% · [\d,]+ rows \(\d+ added, \d+ skipped, \d+ invalid\) · [\d,]+ rows\/s · ETA \S+$/
          )
        }
        assert.notInclude(out.stderr, "\r", "no terminal redraws in a log")
        assert.strictEqual((JSON.parse(out.stdout) as { added: number }).added, 338, "stdout keeps the JSON summary")
      }),
    { timeout: 60_000 }
  )
})
