import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { execFile, spawn } from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { decodeSimOptions, parseFaults, parseModels } from "../src/Cli/SimInput.js"

// The built binary (`npx tsc -b` first), run the way users run it.
const main = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../dist/src/main.js")

const fails = (args: ReadonlyArray<string>) =>
  Effect.async<{ code: number; stderr: string }>((resume) => {
    const child = execFile(
      process.execPath,
      [main, "--port", "0", ...args],
      { env: { NO_COLOR: "1" }, timeout: 30_000 },
      (error, _stdout, stderr) =>
        resume(Effect.succeed({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stderr }))
    )
    return Effect.sync(() => void child.kill())
  })

/** Starts the binary and resolves with its first stdout line, then stops it. */
const firstLine = (args: ReadonlyArray<string>) =>
  Effect.async<string>((resume) => {
    const child = spawn(process.execPath, [main, "--port", "0", ...args], { env: { NO_COLOR: "1" } })
    let out = ""
    let done = false
    const finish = (line: string) => {
      if (done) return
      done = true
      child.kill()
      resume(Effect.succeed(line))
    }
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes("\n")) finish(out.split("\n")[0]!)
    })
    child.on("exit", (code) => finish(`exited with ${code}: ${out}`))
    return Effect.sync(() => void child.kill())
  })

const left = <A>(e: Either.Either<A, string>) => Either.getLeft(e).pipe((o) => (o._tag === "Some" ? o.value : ""))

describe("the deepnote-llm-sim command line", () => {
  it("reads flag values into options, naming the flag of a bad one", () => {
    assert.deepStrictEqual(parseModels([]), undefined)
    assert.deepStrictEqual(parseModels(["a"]), "a")
    assert.deepStrictEqual(parseModels(["a,b", "c", "a"]), ["a", "b", "c"])
    assert.deepStrictEqual(parseFaults("429, 529,stall"), Either.right(["429", "529", "stall"]))
    assert.strictEqual(
      left(parseFaults("429,528")),
      "--faults: unknown fault kind(s) 528 (use 429, 503, 529, stall, drop, malformed, garbage)"
    )
    const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
      [{ backgroundLoad: -1 }, "--background-load: Expected a non-negative number, actual -1"],
      [{ embeddingDim: 0 }, "--embedding-dim: Expected a positive number, actual 0"],
      [{ defaultTemperature: -1 }, "--default-temperature: Expected a non-negative number, actual -1"],
      [{ retryAfterSeconds: -1 }, "--retry-after: Expected a non-negative number, actual -1"],
      [{ schedulingPolicy: "lifo" }, `--scheduling-policy: Expected "fcfs", actual "lifo"`],
      [
        { kvCapacityTokens: 1000 },
        "--max-model-len: the model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (992); raise kvCapacityTokens or lower maxModelLen"
      ],
      [
        { backgroundLoad: 1, backgroundPromptTokens: 40_000 },
        "--background-prompt-tokens: a background request (40000 + 128 tokens) exceeds maxModelLen (32768)"
      ]
    ]
    for (const [input, message] of cases) assert.strictEqual(left(decodeSimOptions(input)), message)
    const ok = decodeSimOptions({ model: ["a", "b"], schedulingPolicy: "priority", backgroundLoad: 2 })
    assert.isTrue(Either.isRight(ok))
  })

  it.live(
    "the binary exits 2 with one line on stderr for a bad flag, and starts with the new ones",
    () =>
      Effect.gen(function*() {
        const [policy, load, started] = yield* Effect.all([
          fails(["--scheduling-policy", "lifo"]),
          fails(["--background-load", "two"]),
          firstLine(["--model", "a,b", "--model", "c", "--scheduling-policy", "priority", "--background-load", "1"])
        ], { concurrency: 3 })
        assert.deepStrictEqual(policy, {
          code: 2,
          stderr: "--scheduling-policy: 'lifo' is not one of fcfs, priority\n\n"
        })
        assert.strictEqual(load.code, 2)
        assert.strictEqual(load.stderr.trim(), "--background-load: 'two' is not an integer")
        assert.match(started, /^deepnote-llm-sim listening on http:\/\/127\.0\.0\.1:\d+ \(model a, b, c, .*priority\)$/)
      }),
    60_000
  )
})
