import { start } from "@deepnote-rag/llm-sim"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"
import { indexedHome, llmArgs, main, runCli, runCliProcess, sampleQuestions, tempHome } from "./RunCli.js"

/** What a row may use: a home with the collection `sample` and one finished run, a scratch directory, a simulator. */
interface Context {
  readonly home: string
  readonly runId: string
  readonly scratch: string
  readonly llmUrl: string
  readonly busyPort: number
}

interface Row {
  readonly name: string
  /** Prepares files (copies of the home, corrupt files) and returns the arguments. */
  readonly argv: (c: Context) => ReadonlyArray<string>
  readonly code: number
  readonly stderr: RegExp
  /** Match anywhere in stderr (a logged warning), not only its last plain line. */
  readonly anywhere?: boolean
  /** stderr is that one line and nothing else. */
  readonly only?: boolean
  /** Environment variables of the process. */
  readonly env?: Record<string, string>
}

const run = (home: string, ...more: ReadonlyArray<string>) => [
  "run",
  "--dataset",
  sampleQuestions,
  "--collection",
  "sample",
  "--home",
  home,
  "--quiet",
  ...more
]

/** A copy of the context's home (so a row may damage it). */
const copyHome = (c: Context, name: string) => {
  const copy = Path.join(c.scratch, name)
  Fs.cpSync(c.home, copy, { recursive: true })
  return copy
}

/** Overwrites page `page` (1-based, 4096-byte pages) of the store with garbage. */
const corruptPage = (file: string, page: number) => {
  const fd = Fs.openSync(file, "r+")
  Fs.writeSync(fd, Buffer.alloc(4096, 0xab), 0, 4096, 4096 * (page - 1))
  Fs.closeSync(fd)
}

/** A run on a copy of the home whose store has page `page` (of the part `what`) overwritten: refused, the file named. */
const corruptStore = (what: string, copy: string, page: number): Row => ({
  name: `a page-corrupted store (${what})`,
  argv: (c) => {
    const home = copyHome(c, copy)
    corruptPage(Path.join(home, "deepnote.sqlite"), page)
    return run(home, "--limit", "1")
  },
  code: 1,
  stderr: /deepnote\.sqlite is corrupted \(quick_check/
})

const rows: ReadonlyArray<Row> = [
  {
    name: "run --concurrency 0",
    argv: (c) => run(c.home, "--concurrency", "0"),
    code: 2,
    stderr: /--concurrency must be/
  },
  {
    name: "run --limit 0",
    argv: (c) => run(c.home, "--limit", "0"),
    code: 2,
    stderr: /--limit must be an integer ≥ 1$/
  },
  {
    name: "a misspelled flag",
    argv: (c) => run(c.home, "--concurency", "2"),
    code: 2,
    stderr: /^deepnote: run does not take '--concurency' \(`deepnote run --help` lists what it takes\)/
  },
  {
    name: "a shared option before a command that does not take it",
    argv: (c) => ["--home", c.home, "inspect", "result.json"],
    code: 2,
    stderr: /^deepnote: inspect does not take '--home' \(`deepnote inspect --help` lists what it takes\)$/,
    only: true
  },
  {
    name: "an option without its value at the end (it was read as the run id)",
    argv: (c) => ["status", "--home", c.home, "--limit"],
    code: 2,
    stderr: /^deepnote: --limit needs a value \(`deepnote status --help` lists what it takes\)$/,
    only: true
  },
  {
    name: "a flag of the wrong type",
    argv: (c) => run(c.home, "--limit", "many"),
    code: 2,
    stderr: /^deepnote: --limit: 'many' is not an integer$/,
    only: true
  },
  {
    name: "a value outside a flag's choices",
    argv: (c) => run(c.home, "--engine", "nope"),
    code: 2,
    stderr: /^deepnote: --engine must be one of extractive, llm \(got 'nope'\)$/,
    only: true
  },
  {
    name: "two problems @effect/cli finds at once",
    argv: (c) => ["run", "--home", c.home, "--top-k=1.5"],
    code: 2,
    stderr: /^deepnote: run needs --dataset; --top-k: '1\.5' is not an integer$/,
    only: true
  },
  {
    name: "an unknown command",
    argv: () => ["runn"],
    code: 2,
    stderr: /^deepnote: unknown command 'runn' \(did you mean 'run'\?\): one of index, .*, keys$/,
    only: true
  },
  {
    name: "a command that needs a subcommand, without one",
    argv: () => ["keys", "--tenant", "t1"],
    code: 2,
    stderr: /^deepnote: keys needs a subcommand first: one of create, list, revoke \(`deepnote keys --help`\)$/,
    only: true
  },
  {
    name: "export -o into a missing directory",
    argv: (c) => ["export", c.runId, "--home", c.home, "-o", Path.join(c.scratch, "missing/dir/x.jsonl")],
    code: 2,
    stderr: /the directory .*missing\/dir does not exist/
  },
  {
    name: "eval --per-item with a table (the option would do nothing)",
    argv: (c) => ["eval", c.runId, "--per-item", "--home", c.home],
    code: 2,
    stderr: /--per-item .* use it with --format json \(got --format table\)/
  },
  {
    name: "an unknown run",
    argv: (c) => ["export", "r-nope", "--home", c.home],
    code: 1,
    stderr: /unknown run id "r-nope"/
  },
  {
    name: "an unknown key in a config file",
    argv: (c) => {
      const file = Path.join(c.scratch, "bad.yaml")
      Fs.writeFileSync(file, "max_step: 3\n")
      return run(c.home, "--limit", "1", "--config", file)
    },
    code: 2,
    stderr: /invalid configuration: max_step .*is unexpected/
  },
  {
    name: "a setting from the environment that does not decode",
    argv: (c) => run(copyHome(c, "tolerance"), "--limit", "1"),
    env: { DEEPNOTE_STORE_OUTAGE_TOLERANCE: "soon" },
    code: 2,
    stderr: /^deepnote: DEEPNOTE_STORE_OUTAGE_TOLERANCE: Expected a duration but received "soon"$/,
    only: true
  },
  {
    name: "server settings from the environment that do not decode: each named",
    argv: (c) => ["serve", "--home", c.home, "--port", "0"],
    env: { DEEPNOTE_SERVER_ASK_QUEUE: "many", DEEPNOTE_SERVER_DRAIN_TIMEOUT: "soon" },
    code: 2,
    stderr:
      /^deepnote: DEEPNOTE_SERVER_ASK_QUEUE: Expected an integer value but received "many"; DEEPNOTE_SERVER_DRAIN_TIMEOUT: Expected a duration but received "soon"$/,
    only: true
  },
  {
    name: "search cache settings from the environment that do not decode: each named, before the command runs",
    argv: (c) => ["ask", "Who?", "-c", "sample", "--home", c.home],
    env: { DEEPNOTE_SEARCH_CACHE_SCORES: "lots", DEEPNOTE_SEARCH_CACHE_PASSAGES: "-1" },
    code: 2,
    stderr:
      /^deepnote: DEEPNOTE_SEARCH_CACHE_SCORES: Expected an integer value but received "lots"; DEEPNOTE_SEARCH_CACHE_PASSAGES: Expected a whole number, 0 or more$/,
    only: true
  },
  {
    name: "an LLM URL where nothing listens (no model configured)",
    // port 9 (discard) of 127.0.0.1: nothing listens there; the reason is named, not "no model listed"
    argv: (
      c
    ) => ["ask", "Who?", "-c", "sample", "--home", c.home, "--engine", "llm", "--llm-url", "http://127.0.0.1:9/v1"],
    code: 1,
    stderr: /no endpoint answered \/v1\/models with a model id: http:\/\/127\.0\.0\.1:9 \(connection refused\)/
  },
  {
    name: "inspect a file that is not JSON (the parser quotes its lines)",
    argv: (c) => {
      const file = Path.join(c.scratch, "two-lines.json")
      Fs.writeFileSync(file, "garbage\n{\"a\": 1}\n")
      return ["inspect", file]
    },
    code: 2,
    // one line: the quoted newlines escaped
    stderr: /two-lines\.json is not a saved DeepNote result: .*garbage\\n.* is not valid JSON$/
  },
  { name: "inspect a directory", argv: (c) => ["inspect", c.scratch], code: 2, stderr: /: a directory, not a file$/ },
  {
    name: "a binary corpus file",
    argv: (c) => {
      const file = Path.join(c.scratch, "binary.jsonl")
      Fs.writeFileSync(file, Buffer.from([123, 34, 0, 1, 2, 255, 254, 10]))
      return ["index", file, "--collection", "b", "--home", c.home]
    },
    code: 1,
    stderr: /binary.jsonl looks binary/
  },
  corruptStore("a table run writes", "corrupt-items", 8),
  corruptStore("the journal", "corrupt-journal", 12),
  {
    name: "a corrupt llm-cache.sqlite",
    argv: (c) => {
      const home = copyHome(c, "corrupt-cache")
      Fs.writeFileSync(Path.join(home, "llm-cache.sqlite"), Buffer.alloc(8192, 0x5a))
      return run(home, "--limit", "1", ...llmArgs(c.llmUrl))
    },
    // a cache is disposable: the damaged file is named, set aside, and the run goes on with an empty one
    code: 0,
    stderr: /LLM cache \S+llm-cache\.sqlite is damaged \(not an SQLite database\): moved it to \S+\.corrupt-/,
    anywhere: true
  },
  {
    name: "a port in use",
    argv: (c) => ["serve", "--home", c.home, "--port", String(c.busyPort)],
    code: 1,
    stderr: /already in use/
  }
]

/** A port held by a listening socket until the scope closes. */
const busyPort = Effect.acquireRelease(
  Effect.async<Net.Server>((resume) => {
    const server = Net.createServer()
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
  }),
  (server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
)

/** Rows run a second time as child processes (see the table's test). */
const byProcess = [
  "a misspelled flag",
  "an unknown run",
  "a setting from the environment that does not decode",
  "inspect a file that is not JSON (the parser quotes its lines)",
  "a corrupt llm-cache.sqlite"
]

const lastLine = (stderr: string) => stderr.trim().split("\n").filter((l) => !l.startsWith("{")).pop() ?? ""

describe("bad input to the CLI: one clear line on stderr, the documented exit code, no stack trace", () => {
  it.scopedLive("the table", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", stepBaseMs: 1 })
      const home = yield* indexedHome
      const scratch = yield* tempHome
      const first = yield* runCli(run(home, "--limit", "1"))
      assert.strictEqual(first.code, 0, first.stderr)
      const runId = /run (r-[^\s:]+)/.exec(first.stdout)?.[1] ?? ""
      const port = yield* busyPort
      const address = port.address()
      const context: Context = {
        home,
        runId,
        scratch,
        llmUrl: sim.url,
        busyPort: typeof address === "object" && address !== null ? address.port : 0
      }
      // every row's files first (copies of the home are made before any command runs), then three rows at a time, in
      // this process (InProcessCli.ts)
      const prepared = rows.map((row) => ({ row, argv: row.argv(context) }))
      const results = yield* Effect.forEach(prepared, ({ argv, row }) => runCli(argv, row.env, 60_000), {
        concurrency: 3
      })
      for (const [i, { row }] of prepared.entries()) {
        const result = results[i]!
        assert.strictEqual(result.code, row.code, `${row.name}: ${result.stderr}`)
        assert.match(row.anywhere === true ? result.stderr : lastLine(result.stderr), row.stderr, row.name)
        if (row.only === true) assert.notInclude(result.stderr.trim(), "\n", `${row.name}: one line`)
        assert.notMatch(result.stderr, /^\s+at /m, `${row.name}: no stack trace`)
        assert.notInclude(result.stderr, "internal error", row.name)
      }
      // the verdicts are the command's own: a few rows of each kind again as the built command, as users run it, give
      // the same exit code and the same line
      const asProcesses = prepared.filter(({ row }) => byProcess.includes(row.name))
      assert.lengthOf(asProcesses, byProcess.length)
      yield* Effect.forEach(asProcesses, ({ argv, row }) =>
        Effect.map(runCliProcess(argv, row.env, 60_000), (result) => {
          const inProcess = results[prepared.findIndex((p) => p.row === row)]!
          assert.strictEqual(result.code, inProcess.code, `${row.name} (process): ${result.stderr}`)
          assert.strictEqual(lastLine(result.stderr), lastLine(inProcess.stderr), `${row.name} (process)`)
          assert.notMatch(result.stderr, /^\s+at /m, `${row.name} (process): no stack trace`)
        }), { concurrency: 2 })
    }), 180_000)

  it.scopedLive(
    "--trace-file into a missing directory: the directory is created and the spans written",
    () =>
      Effect.gen(function*() {
        const home = yield* indexedHome
        const file = Path.join(home, "missing/dir/trace.jsonl")
        const result = yield* runCli(run(home, "--limit", "1", "--trace-file", file))
        assert.strictEqual(result.code, 0, result.stderr)
        assert.isAbove(Fs.statSync(file).size, 0)
      }),
    60_000
  )

  it.scopedLive("a read-only home: named as read-only (exit 1), nothing written", () =>
    Effect.gen(function*() {
      const home = yield* indexedHome
      Fs.chmodSync(home, 0o555)
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.chmodSync(home, 0o755)))
      // root ignores permissions: run the CLI as `nobody` then
      const asRoot = process.getuid?.() === 0
      const argv = [main, ...run(home, "--limit", "1")]
      const result = yield* Effect.async<{ code: number; stderr: string }>((resume) => {
        const [command, args] = asRoot
          ? ["/usr/sbin/runuser", ["-u", "nobody", "--", process.execPath, ...argv]] as const
          : [process.execPath, argv] as const
        execFile(command, args, { cwd: "/", env: { NO_COLOR: "1" } }, (error, _stdout, stderr) =>
          resume(
            Effect.succeed({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stderr })
          ))
      })
      assert.strictEqual(result.code, 1, result.stderr)
      assert.match(lastLine(result.stderr), /read-only/)
      assert.notMatch(result.stderr, /^\s+at /m)
      assert.isFalse(Fs.existsSync(Path.join(home, "deepnote.sqlite")))
    }), 60_000)
})
