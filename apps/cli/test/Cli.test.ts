import { AnswerRecord } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { writeFileSync } from "node:fs"
import * as Path from "node:path"
import { knobs } from "../src/config/Knobs.js"
import { indexedHome, runCli, sampleCorpus, tempHome } from "./RunCli.js"

const question =
  "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"

/** No stack traces, ever: errors are one line starting with "deepnote:". */
const assertCleanError = (stderr: string, needle: string) => {
  assert.include(stderr, needle)
  assert.notMatch(stderr, /^\s+at /m, "stderr must not contain a stack trace")
  assert.match(stderr.trim(), /^deepnote: /)
  // an optional setting's "could also be absent" is no mistake of the user's (core's `decodeIssues`)
  assert.notInclude(stderr, "Expected undefined")
}

describe("deepnote CLI (over the bundled sample)", () => {
  it.scopedLive("index builds a collection, is resumable, and reports a summary", () =>
    Effect.gen(function*() {
      const home = yield* tempHome
      const first = yield* runCli(["index", ...sampleCorpus, "--collection", "sample", "--home", home])
      assert.strictEqual(first.code, 0, first.stderr)
      assert.include(first.stdout, "338 passages added")
      const again = yield* runCli(["index", ...sampleCorpus, "--collection", "sample", "--home", home, "--json"])
      assert.strictEqual(again.code, 0)
      const summary = JSON.parse(again.stdout) as { added: number; documents: number }
      assert.deepStrictEqual([summary.added, summary.documents], [0, 338])
    }))

  it.scopedLive("ask --json prints one AnswerRecord document with the trace", () =>
    Effect.gen(function*() {
      const home = yield* indexedHome
      const out = yield* runCli(["ask", question, "--collection", "sample", "--home", home, "--json"])
      assert.strictEqual(out.code, 0, out.stderr)
      const record = Schema.decodeUnknownSync(Schema.parseJson(AnswerRecord))(out.stdout)
      assert.strictEqual(record.engine, "extractive")
      assert.strictEqual(record.collection, "sample")
      assert.isAbove(record.result.answer.text.length, 0)
      assert.isAbove(record.result.trace.passages.length, 4)
      assert.strictEqual(record.result.counters.llm.total, 2 + 3 * record.result.counters.steps)
    }))

  it.scopedLive("ask prints the answer, the best note and the trace; inspect renders a saved result", () =>
    Effect.gen(function*() {
      const home = yield* indexedHome
      const saved = Path.join(home, "result.json")
      const out = yield* runCli(["ask", question, "-c", "sample", "--home", home, "--save", saved, "--max-step", "2"])
      assert.strictEqual(out.code, 0, out.stderr)
      for (
        const part of [
          "engine: extractive",
          "Step 0 (initial retrieval)",
          "Step 1",
          "Best note",
          "Answer: ",
          "Stopped: "
        ]
      ) {
        assert.include(out.stdout, part)
      }
      const timeline = yield* runCli(["inspect", saved])
      assert.strictEqual(timeline.code, 0, timeline.stderr)
      assert.include(timeline.stdout, "── step 0 · initial note (best)")
      assert.include(timeline.stdout, "── step 1 · judge:")
    }))

  it.scopedLive("a Chinese question is answered from the Chinese passages", () =>
    Effect.gen(function*() {
      const home = yield* indexedHome
      const out = yield* runCli([
        "ask",
        "《战国无双3》是由哪两个公司合作开发的？",
        "-c",
        "sample",
        "--home",
        home,
        "--json"
      ])
      assert.strictEqual(out.code, 0, out.stderr)
      const record = Schema.decodeUnknownSync(Schema.parseJson(AnswerRecord))(out.stdout)
      assert.strictEqual(record.result.trace.passages[0]?.passage.title, "战国无双3")
    }))

  it.scopedLive("usage errors exit 2 with one line naming the problem", () =>
    Effect.gen(function*() {
      const home = yield* indexedHome
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["ask", "   ", "-c", "sample"], "the question is empty"],
        [["ask", question, "-c", "sample", "--top-k", "0"], "--top-k (topK): topK must be a positive integer"],
        [
          ["ask", question, "-c", "sample", "--max-step", "2", "--max-failure", "3"],
          "maxFailure (3) must be ≤ maxStep (2)"
        ],
        [["ask", question, "-c", "sample", "--role", "judge.colour=red"], "expected ROLE.FIELD=VALUE"],
        [["ask", question, "-c", "sample", "--reranker", "http"], "rerankerUrl is required"],
        // checked before the question is answered, not after
        [
          ["ask", question, "-c", "sample", "--save", Path.join(home, "missing", "a.json")],
          `--save ${Path.join(home, "missing", "a.json")}: the directory ${Path.join(home, "missing")} does not exist`
        ]
      ]
      for (const [args, needle] of cases) {
        const out = yield* runCli([...args, "--home", home])
        assert.strictEqual(out.code, 2, `${args.join(" ")} → ${out.stderr}`)
        assertCleanError(out.stderr, needle)
        assert.notInclude(out.stderr, "step 0", `${args.join(" ")}: nothing is answered`)
      }
      const badFlag = yield* runCli(["ask", question, "--top-k", "many", "--home", home])
      assert.strictEqual(badFlag.code, 2)
      const badConfig = Path.join(home, "bad.json")
      writeFileSync(badConfig, "{ not json")
      const config = yield* runCli(["ask", question, "--config", badConfig, "--home", home])
      assert.strictEqual(config.code, 2)
      assertCleanError(config.stderr, "not valid JSON")
      const badYaml = Path.join(home, "bad.yaml")
      writeFileSync(badYaml, "topK: [1\n")
      const yaml = yield* runCli(["ask", question, "--config", badYaml, "--home", home])
      assert.strictEqual(yaml.code, 2)
      // one line: the parser's message and position, not the code frame it appends
      assert.match(yaml.stderr.trim(), /^deepnote: config file .*bad\.yaml: not valid YAML \(.* at line 2, column 1\)$/)
      const garbage = yield* runCli(["inspect", badConfig])
      assert.strictEqual(garbage.code, 2)
    }))

  it.scopedLive("runtime failures exit 1 with a clear message", () =>
    Effect.gen(function*() {
      const home = yield* indexedHome
      const unknown = yield* runCli(["ask", question, "-c", "nope", "--home", home])
      assert.strictEqual(unknown.code, 1)
      assertCleanError(unknown.stderr, `unknown collection "nope"`)
      const missing = yield* runCli(["index", Path.join(home, "missing.jsonl"), "-c", "x", "--home", home])
      assert.strictEqual(missing.code, 1)
      assertCleanError(missing.stderr, "missing.jsonl")
    }))

  it.scopedLive("configuration precedence: flags > config file > environment > defaults", () =>
    Effect.gen(function*() {
      const home = yield* tempHome
      const file = Path.join(home, "cfg.yaml")
      writeFileSync(file, "topK: 9\nmaxStep: 4\nroles:\n  judge:\n    temperature: 0\n")
      const topK = (stdout: string) => (JSON.parse(stdout) as { config: { topK: number; maxStep: number } }).config
      const defaults = yield* runCli(["config", "--json", "--home", home])
      assert.strictEqual(topK(defaults.stdout).topK, 5)
      const env = yield* runCli(["config", "--json", "--home", home], { DEEPNOTE_TOP_K: "7", DEEPNOTE_MAX_STEP: "5" })
      assert.deepStrictEqual(topK(env.stdout), { ...topK(env.stdout), topK: 7, maxStep: 5 })
      const withFile = yield* runCli(["config", "--json", "--home", home, "--config", file], {
        DEEPNOTE_TOP_K: "7",
        DEEPNOTE_MAX_STEP: "5"
      })
      assert.deepStrictEqual([topK(withFile.stdout).topK, topK(withFile.stdout).maxStep], [9, 4])
      const withFlag = yield* runCli(["config", "--json", "--home", home, "--config", file, "--top-k", "3"], {
        DEEPNOTE_TOP_K: "7"
      })
      assert.strictEqual(topK(withFlag.stdout).topK, 3)
      const badEnv = yield* runCli(["config", "--home", home], { DEEPNOTE_TOP_K: "-1" })
      assert.strictEqual(badEnv.code, 2)
      assertCleanError(badEnv.stderr, "topK must be a positive integer")
    }))

  it.scopedLive("the passage budget and the query composition: flags, config file, environment; ask honours them", () =>
    Effect.gen(function*() {
      const home = yield* indexedHome
      const file = Path.join(home, "budget.yaml")
      writeFileSync(file, "maxUniquePassages: 8\nqueryComposition: qt\n")
      const knobsOf = (stdout: string) => {
        const { config } = JSON.parse(stdout) as { config: { maxUniquePassages?: number; queryComposition: string } }
        return [config.maxUniquePassages, config.queryComposition]
      }
      const defaults = yield* runCli(["config", "--json", "--home", home])
      assert.deepStrictEqual(knobsOf(defaults.stdout), [undefined, "both"])
      const fromFile = yield* runCli(["config", "--json", "--home", home, "--config", file])
      assert.deepStrictEqual(knobsOf(fromFile.stdout), [8, "qt"])
      const fromEnv = yield* runCli(["config", "--json", "--home", home], {
        DEEPNOTE_MAX_UNIQUE_PASSAGES: "9",
        DEEPNOTE_QUERY_COMPOSITION: "q0+qt"
      })
      assert.deepStrictEqual(knobsOf(fromEnv.stdout), [9, "q0+qt"])
      const bad = yield* runCli(["ask", question, "-c", "sample", "--home", home, "--query-composition", "q0"])
      assert.strictEqual(bad.code, 2)
      const out = yield* runCli([
        "ask",
        question,
        ...["-c", "sample", "--home", home, "--json", "--max-unique-passages", "7", "--query-composition", "q0+qt"]
      ])
      assert.strictEqual(out.code, 0, out.stderr)
      const { result } = Schema.decodeUnknownSync(Schema.parseJson(AnswerRecord))(out.stdout)
      assert.strictEqual(result.counters.uniquePassages, 7)
      assert.strictEqual(new Set(result.trace.passages.map((e) => e.passage.id)).size, 7)
      assert.strictEqual(result.stopReason, "passage-cap")
    }))

  it.scopedLive("the store: --store, else the config file's `store`, else DEEPNOTE_STORE, else the home's file", () =>
    Effect.gen(function*() {
      const home = yield* indexedHome
      const dataset = Path.join(home, "q.jsonl")
      writeFileSync(dataset, JSON.stringify({ id: "q1", question, answers: ["x"] }) + "\n")
      const fromFile = Path.join(home, "from-file.sqlite")
      const fromFlag = Path.join(home, "from-flag.sqlite")
      const config = Path.join(home, "cfg.yaml")
      writeFileSync(config, `store: sqlite:${fromFile}\n`)
      const run = (extra: ReadonlyArray<string>) =>
        runCli(["run", "--dataset", dataset, "-c", "sample", "--home", home, "--quiet", "--config", config, ...extra])
      const idOf = (stdout: string) => /run (r-[0-9a-z-]+)/.exec(stdout)?.[1]
      const viaFile = yield* run([])
      assert.strictEqual(viaFile.code, 0, viaFile.stderr)
      const viaFlag = yield* run(["--store", fromFlag])
      assert.strictEqual(viaFlag.code, 0, viaFlag.stderr)
      const runsIn = (store: string) =>
        Effect.map(
          runCli(["status", "--json", "--home", home, "--store", store]),
          (out) => (JSON.parse(out.stdout) as ReadonlyArray<{ id: string }>).map((r) => r.id)
        )
      assert.deepStrictEqual(yield* runsIn(fromFile), [idOf(viaFile.stdout)])
      assert.deepStrictEqual(yield* runsIn(fromFlag), [idOf(viaFlag.stdout)])
      writeFileSync(config, "store: 42\n")
      const bad = yield* run([])
      assert.strictEqual(bad.code, 2)
      assertCleanError(bad.stderr, "store must be a URL string")
    }))

  it.scopedLive("ask --help documents every knob", () =>
    Effect.gen(function*() {
      const out = yield* runCli(["ask", "--help"])
      assert.strictEqual(out.code, 0)
      for (const knob of knobs) assert.include(out.stdout, `--${knob.flag}`)
      for (const flag of ["--role", "--config", "--json", "--home", "--collection", "--llm-url", "--save"]) {
        assert.include(out.stdout, flag)
      }
      // into a pipe, help is plain text: no colour codes, with or without NO_COLOR
      assert.notInclude(out.stdout, "\u001b[")
      const piped = yield* runCli(["--help"], { NO_COLOR: "" })
      assert.strictEqual(piped.code, 0)
      assert.include(piped.stdout, "USAGE")
      assert.notInclude(piped.stdout, "\u001b[")
    }))
})
