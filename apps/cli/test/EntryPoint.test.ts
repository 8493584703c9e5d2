import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import { readdirSync, readFileSync, statSync } from "node:fs"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { version } from "../src/Cli.js"
import { hoistGlobalOptions } from "../src/GlobalOptions.js"
import { helpWidth, wrapHelp } from "../src/render/Wrap.js"
import { v8FlagsChanging } from "../src/runs/LeanHeap.js"
import { indexedHome, repoRoot, runCli } from "./RunCli.js"

const bin = Path.join(repoRoot, "apps/cli/bin/deepnote.mjs")

/** Runs `node` with these arguments as a child process, from the repository's root. */
const runNode = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.async<{ code: number; stdout: string; stderr: string }>((resume) => {
    const child = execFile(process.execPath, args, { cwd: repoRoot, env: { NO_COLOR: "1", ...env } }, (
      error,
      stdout,
      stderr
    ) => resume(Effect.succeed({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr })))
    return Effect.sync(() => void child.kill())
  })

/** Runs the committed entry point (what `node_modules/.bin/deepnote` links to) as a child process. */
const runBin = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => runNode([bin, ...args], env)

/** The first line of a code cache file: the size and modification time of the bundle it was made from. */
const cacheHeader = (file: string) => readFileSync(file).subarray(0, 64).toString().split("\n")[0]

/** A scratch folder (removed with the test's scope) holding one file, `name`, with this text. */
const scratchFile = (prefix: string, name: string, text: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.makeTempDirectoryScoped({ prefix })
    const file = Path.join(dir, name)
    yield* fs.writeFileString(file, text)
    return { dir, file }
  })

const words = (text: string) => text.split(/\s+/u).filter((w) => w.length > 0)

describe("help fitted to the terminal", () => {
  it("breaks long lines at spaces within the width and loses no word", () => {
    const usage = `  - ask ${Array.from({ length: 60 }, (_, i) => `[--knob-${i} integer]`).join(" ")}`
    const text = `USAGE\n\n${usage}${" ".repeat(200)}\n`
    const fitted = wrapHelp(text, 80)
    for (const line of fitted.split("\n")) assert.isAtMost(line.length, 80, line)
    assert.deepStrictEqual(words(fitted), words(text))
    // continuations sit under the item's text
    assert.isTrue(
      fitted.split("\n").slice(3).filter((line) => line !== "").every((line) => /^ {6}\S/u.test(line))
    )
  })

  it("puts a column after a run of spaces (a command's description) on its own line", () => {
    const fitted = wrapHelp(`  - index <file>...${" ".repeat(90)}Build or extend a collection.`, 60)
    assert.deepStrictEqual(fitted.split("\n"), ["  - index <file>...", "      Build or extend a collection."])
  })

  it("does not count colour codes as columns", () => {
    const bold = (s: string) => `\u001b[1m${s}\u001b[0m`
    const line = Array.from({ length: 10 }, (_, i) => bold(`word${i}`)).join(" ")
    assert.strictEqual(wrapHelp(line, 80), line)
  })

  it("uses the terminal's width, 80 when unknown", () => {
    assert.strictEqual(helpWidth(undefined), 80)
    assert.strictEqual(helpWidth(Number.NaN), 80)
    assert.strictEqual(helpWidth(132), 132)
    assert.strictEqual(helpWidth(10), 40)
  })
})

describe("the deepnote entry point (bin/deepnote.mjs)", () => {
  it.scopedLive("answers --version without loading the CLI, with the CLI's version", () =>
    Effect.gen(function*() {
      const fast = yield* runBin(["--version"])
      const full = yield* runCli(["--version"])
      const pkg = JSON.parse(readFileSync(Path.join(repoRoot, "apps/cli/package.json"), "utf8")) as { version: string }
      assert.strictEqual(fast.code, 0)
      assert.strictEqual(fast.stdout.trim(), pkg.version)
      assert.strictEqual(full.stdout.trim(), pkg.version)
      assert.strictEqual(version, pkg.version)
    }))

  it.scopedLive("prints the same top-level help as the full CLI, fitted to COLUMNS", () =>
    Effect.gen(function*() {
      for (const columns of ["80", "120"]) {
        const fast = yield* runBin(["--help"], { COLUMNS: columns })
        const full = yield* runCli(["--help"], { COLUMNS: columns })
        assert.strictEqual(fast.code, 0)
        assert.strictEqual(fast.stdout.trimEnd(), full.stdout.trimEnd())
        for (const line of fast.stdout.split("\n")) assert.isAtMost(line.length, Number(columns), line)
      }
      const noArgs = yield* runBin([], { COLUMNS: "80" })
      assert.strictEqual(noArgs.stdout.trimEnd(), (yield* runBin(["--help"], { COLUMNS: "80" })).stdout.trimEnd())
    }))

  it.scopedLive("hands every other command to the full CLI, help included", () =>
    Effect.gen(function*() {
      const out = yield* runBin(["ask", "--help"])
      assert.strictEqual(out.code, 0)
      assert.include(out.stdout, "--collection")
      for (const line of out.stdout.split("\n")) assert.isAtMost(line.length, 80, line)
      const bad = yield* runBin(["no-such-command"])
      assert.notStrictEqual(bad.code, 0)
    }))
})

describe("the bundle's start (scripts/bundle-cli.mjs)", () => {
  it.scopedLive("evaluates undici only when a command uses it, and pg only for a Postgres store", () =>
    Effect.gen(function*() {
      // Node's built-in modules a process loaded: undici loads http2 and Node's own fetch; pg, on Node 20 (no
      // `navigator`), constructs a `Response` at load to see whether it runs on Cloudflare, which loads fetch too
      const { dir, file: hook } = yield* scratchFile(
        "deepnote-lazy-packages-",
        "loaded.mjs",
        `process.on("exit", () => process.stderr.write("loaded " + JSON.stringify(process.moduleLoadList) + "\\n"))`
      )
      const status = yield* runNode(["--import", pathToFileURL(hook).href, bin, "status", "--home", dir])
      assert.strictEqual(status.code, 0, status.stderr)
      const modules: ReadonlyArray<string> = JSON.parse(
        status.stderr.split("\n").find((line) => line.startsWith("loaded "))!.slice(7)
      )
      assert.notInclude(modules, "NativeModule http2")
      assert.notInclude(modules, "NativeModule internal/deps/undici/undici")
      // a Postgres store (here one that cannot be reached) loads pg through its stand-in, which hands out the package's
      // own exports: its pool connects and meets the refusal (a broken stand-in would fail with a TypeError instead)
      const postgres = yield* runNode([bin, "status", "--home", dir, "--store", "postgres://127.0.0.1:9/none"])
      assert.strictEqual(postgres.code, 1, postgres.stderr)
      assert.include(
        postgres.stderr,
        "cannot reach the Postgres store postgres://127.0.0.1:9/none (connect ECONNREFUSED"
      )
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("a bundle older than the build (a checkout after a bare `tsc -b`)", () => {
  /** A launcher beside a checkout's build whose bundle was made from `main.js` with `bundledContent`. */
  const staleCheckout = (bundledContent: string) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped({ prefix: "deepnote-stale-bundle-" })
      const cli = Path.join(root, "apps/cli")
      yield* fs.makeDirectory(Path.join(cli, "bin"), { recursive: true })
      yield* fs.makeDirectory(Path.join(cli, "dist/bundle"), { recursive: true })
      yield* fs.makeDirectory(Path.join(cli, "dist/src"), { recursive: true })
      yield* fs.copyFile(bin, Path.join(cli, "bin/deepnote.mjs"))
      for (const file of ["run-bundle.mjs", "bundle-inputs.mjs"]) {
        yield* fs.copyFile(Path.join(Path.dirname(bin), file), Path.join(cli, "bin", file))
      }
      yield* fs.writeFileString(Path.join(cli, "dist/.tsbuildinfo"), "{}")
      const bundle = Path.join(cli, "dist/bundle/deepnote.cjs")
      yield* fs.writeFileString(bundle, `process.stdout.write("bundle\\n")`)
      const hash = createHash("sha256").update(bundledContent).digest("hex")
      yield* fs.writeFileString(
        Path.join(cli, "dist/bundle/inputs.json"),
        JSON.stringify([["apps/cli/dist/src/main.js", hash]])
      )
      // main.js written after the bundle was made (a minute earlier)
      const main = Path.join(cli, "dist/src/main.js")
      yield* fs.writeFileString(main, `process.stdout.write("unbundled\\n")`)
      const earlier = new Date(Date.now() - 60_000)
      yield* fs.utimes(bundle, earlier, earlier)
      return { launcher: Path.join(cli, "bin/deepnote.mjs"), bundle, main }
    })

  it.scopedLive("runs the unbundled build when an input changed, and says so on a terminal only", () =>
    Effect.gen(function*() {
      const { launcher } = yield* staleCheckout(`process.stdout.write("before the change\\n")`)

      const piped = yield* runNode([launcher, "status"])
      assert.deepStrictEqual([piped.code, piped.stdout, piped.stderr], [0, "unbundled\n", ""])
      // on a terminal (script(1) gives the command one): one line naming what happened and how to mend it
      const terminal = yield* Effect.async<string>((resume) => {
        execFile(
          "script",
          ["-qec", `${process.execPath} ${launcher} status`, "/dev/null"],
          (_error, stdout) => resume(Effect.succeed(stdout))
        )
      })
      assert.match(terminal, /the bundle is older than the build; running the unbundled build .*npm run build/u)
      assert.include(terminal, "unbundled")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("runs the bundle when the newer inputs hold the content it was made from (turbo's replay)", () =>
    Effect.gen(function*() {
      const { bundle, launcher, main } = yield* staleCheckout(`process.stdout.write("unbundled\\n")`)

      const first = yield* runNode([launcher, "status"])
      assert.deepStrictEqual([first.code, first.stdout, first.stderr], [0, "bundle\n", ""])
      // the bundle's time brought forward: later starts compare times only
      assert.isAtLeast(statSync(bundle).mtimeMs, statSync(main).mtimeMs)
      const second = yield* runNode([launcher, "status"])
      assert.deepStrictEqual([second.code, second.stdout], [0, "bundle\n"])
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("V8's code cache of the bundle (bin/run-bundle.mjs)", () => {
  const runBundle = pathToFileURL(Path.join(repoRoot, "apps/cli/bin/run-bundle.mjs")).href

  /** Starts a CommonJS file through runBundle in a fresh process; prints what it ran and what became of the cache. */
  const start = (bundle: string, flags: ReadonlyArray<string> = [], env: Record<string, string> = {}) =>
    runNode([
      ...flags,
      "--input-type=module",
      "-e",
      `const { runBundle } = await import(${JSON.stringify(runBundle)})
process.stdout.write(" cache " + runBundle(new URL(${JSON.stringify(pathToFileURL(bundle).href)})))`
    ], env).pipe(Effect.map((out) => `${out.stdout}${out.stderr}`.trim()))

  it.scopedLive("is written by the first start, used by the next, made again for a new build or other V8 flags", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "deepnote-code-cache-" })
      const bundle = Path.join(dir, "bundle.cjs")
      // what Node's loader gives a CommonJS module, a hashbang line, and a character esbuild leaves as an escape
      const body = `#!/usr/bin/env node
const Path = require("node:path")
process.stdout.write([Path.basename(__filename), __dirname === ${JSON.stringify(dir)}, typeof module.exports,
  Path.sep, /\\u54ea/u.test("哪")].join(" "))`
      yield* fs.writeFileString(bundle, body)
      const ran = "bundle.cjs true object / true"
      assert.strictEqual(yield* start(bundle), `${ran} cache written at exit`)
      assert.strictEqual(yield* start(bundle), `${ran} cache used`)
      const caches = () => readdirSync(Path.join(dir, ".code-cache"))
      assert.deepStrictEqual(caches().length, 1)
      const stat = statSync(bundle)
      assert.strictEqual(cacheHeader(Path.join(dir, ".code-cache", caches()[0]!)), `${stat.size} ${stat.mtimeMs}`)

      yield* fs.writeFileString(bundle, `${body}\n// rebuilt`)
      assert.strictEqual(yield* start(bundle), `${ran} cache written at exit`)
      assert.strictEqual(yield* start(bundle), `${ran} cache used`)
      // V8 rejects a cache made under other flags: each set keeps its own file instead of overwriting the other's
      assert.strictEqual(yield* start(bundle, ["--stack-size=900"]), `${ran} cache written at exit`)
      assert.strictEqual(yield* start(bundle), `${ran} cache used`)
      assert.strictEqual(yield* start(bundle, ["--stack-size=900"]), `${ran} cache used`)
      assert.strictEqual(caches().length, 2)
      assert.strictEqual(yield* start(bundle, [], { NODE_DISABLE_COMPILE_CACHE: "1" }), `${ran} cache off`)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("holds the functions the first start ran, not only its top level", () =>
    Effect.gen(function*() {
      // the same source in two folders: the first start calls `work`, the second does not
      const cacheBytes = (dir: string) => {
        const [name] = readdirSync(Path.join(dir, ".code-cache"))
        return statSync(Path.join(dir, ".code-cache", name!)).size
      }
      const body =
        `const work = (n) => { let total = 0; for (let i = 0; i < n; i++) total += [i, i * 2].map((x) => x + 1)
  .filter((x) => x % 3 !== 0).reduce((a, b) => a + b, 0); return total }
process.stdout.write(process.env.DEEPNOTE_TEST_RUN === "1" ? String(work(10)) : "idle")`
      const sizes: Array<number> = []
      for (const run of ["1", "0"]) {
        const { dir, file: bundle } = yield* scratchFile("deepnote-code-cache-", "bundle.cjs", body)
        assert.match(yield* start(bundle, [], { DEEPNOTE_TEST_RUN: run }), /cache written at exit$/u)
        sizes.push(cacheBytes(dir))
      }
      assert.isAbove(sizes[0]!, sizes[1]!)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("is written before the command changes a V8 flag, so that later starts under the usual flags use it", () =>
    Effect.gen(function*() {
      // what `eval` and `export` do (src/runs/LeanHeap.ts)
      const { file: bundle } = yield* scratchFile(
        "deepnote-code-cache-",
        "bundle.cjs",
        `process.emit(${JSON.stringify(v8FlagsChanging)})
require("node:v8").setFlagsFromString("--heap-growing-percent=100")
process.stdout.write("lean")`
      )
      assert.strictEqual(yield* start(bundle), "lean cache written at exit")
      assert.strictEqual(yield* start(bundle), "lean cache used")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("the command's own bundle has one for this Node once the command has started", () =>
    Effect.gen(function*() {
      const out = yield* runBin(["status", "--help"])
      assert.strictEqual(out.code, 0)
      const bundleDir = Path.join(repoRoot, "apps/cli/dist/bundle")
      const stat = statSync(Path.join(bundleDir, "deepnote.cjs"))
      const mine = readdirSync(Path.join(bundleDir, ".code-cache"))
        .filter((name) => name.startsWith(`deepnote.cjs.${process.version}-${process.arch}-`))
        .map((name) => cacheHeader(Path.join(bundleDir, ".code-cache", name)))
      assert.include(mine, `${stat.size} ${stat.mtimeMs}`)
      // strict like the ES modules it is made of, and ASCII (it decodes in half the time)
      const bytes = readFileSync(Path.join(bundleDir, "deepnote.cjs"))
      assert.match(bytes.toString("latin1", 0, 200), /^#![^\n]*\n"use strict";\n/u)
      assert.isTrue(bytes.every((byte) => byte < 128))
    }))
})

describe("shared options before the command", () => {
  it("moves --home, --store, --config and --json after the command, and nothing else", () => {
    assert.deepStrictEqual(hoistGlobalOptions(["--home", "h", "status"]), ["status", "--home", "h"])
    assert.deepStrictEqual(hoistGlobalOptions(["--store=s", "--json", "eval", "r1"]), [
      "eval",
      "r1",
      "--store=s",
      "--json"
    ])
    assert.deepStrictEqual(hoistGlobalOptions(["status", "--home", "h"]), ["status", "--home", "h"])
    assert.deepStrictEqual(hoistGlobalOptions(["--version"]), ["--version"])
    assert.deepStrictEqual(hoistGlobalOptions(["--home", "h"]), ["--home", "h"])
    assert.deepStrictEqual(hoistGlobalOptions(["--home"]), ["--home"])
  })

  it.scopedLive("deepnote --home H ask … answers like deepnote ask … --home H", () =>
    Effect.gen(function*() {
      const home = yield* indexedHome
      const question = "Which magazine was started first, Arthur's Magazine or First for Women?"
      const before = yield* runCli(["--home", home, "ask", question, "--collection", "sample"])
      const after = yield* runCli(["ask", question, "--collection", "sample", "--home", home])
      assert.strictEqual(before.code, 0, before.stderr)
      // the same answer and report; only the elapsed time may differ
      const untimed = (text: string) => text.replace(/, [0-9.]+ s$/gmu, "")
      assert.strictEqual(untimed(before.stdout), untimed(after.stdout))
      const refused = yield* runCli(["--home", home, "inspect", "x.json"])
      assert.strictEqual(refused.code, 2)
    }))
})
