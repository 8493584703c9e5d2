// What the benchmarks share: where the built binaries are, their flags, scratch homes, and the server and the
// simulator in child processes (their CPU is not the measured client's).
import { execFileSync, spawn } from "node:child_process"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

/** The repository root. */
export const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../..")
/** The built `deepnote` CLI (`npx tsc -b` first). */
export const cliMain = Path.join(root, "apps/cli/bin/deepnote.mjs")
/** The built LLM simulator. */
export const simMain = Path.join(root, "apps/llm-sim/dist/src/main.js")

/** The value after `--name` on the command line, or `fallback`. */
export const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] : fallback
}

/** A fresh scratch directory under the system's temporary directory (the caller removes it). */
export const tempDir = (prefix = "deepnote-bench-") => Fs.mkdtempSync(Path.join(Os.tmpdir(), prefix))

/** `deepnote …args --home home`, synchronously; resolves its standard output. */
export const cliIn = (home) => (...args) =>
  execFileSync(process.execPath, [cliMain, ...args, "--home", home], { encoding: "utf8" })

/** The measured commit (short hash), noting uncommitted changes under packages/; "unknown" outside a git checkout. */
export const codeCommit = () => {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim()
    const dirty = execFileSync("git", ["status", "--porcelain", "packages"], { encoding: "utf8" }).trim().length > 0
    return dirty ? `${head} (packages/ has uncommitted changes)` : head
  } catch {
    return "unknown"
  }
}

/**
 * Starts `deepnote serve …args` and resolves `{ server, url }` once it listens (the URL on 127.0.0.1, read from its
 * log on stderr, which is passed through).
 */
export const startServe = (args, env = {}) => {
  const server = spawn(process.execPath, [cliMain, "serve", ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "pipe"]
  })
  return new Promise((resolve, reject) => {
    let buffer = ""
    server.stderr.on("data", (chunk) => {
      process.stderr.write(chunk)
      buffer += chunk
      const match = /Listening on (http:\/\/[^\s"]+)/u.exec(buffer)
      if (match) resolve({ server, url: match[1].replace("0.0.0.0", "127.0.0.1") })
    })
    server.on("exit", (code) => reject(new Error(`server exited with ${code}`)))
  })
}

/** Starts the simulator with `args` (`env`: its whole environment) and resolves `{ url, port, child }`. */
export const startSim = (args, env = process.env) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [simMain, ...args], { env, stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    child.stdout.on("data", (chunk) => {
      out += chunk
      const m = /listening on (http:\/\/\S+)/u.exec(out)
      if (m) resolve({ url: m[1], port: Number(new URL(m[1]).port), child })
    })
    child.on("exit", (code) => reject(new Error(`simulator exited with ${code}`)))
  })

/** Stops a simulator with `signal` and resolves once it has exited. */
export const stopSim = (sim, signal = "SIGTERM") =>
  new Promise((resolve) => {
    if (sim.child.exitCode !== null || sim.child.signalCode !== null) return resolve()
    sim.child.once("exit", () => resolve())
    sim.child.kill(signal)
  })

/** `f(sim)` with a simulator started with `args`, stopped (with `signal`) afterwards. */
export const withSim = async (args, f, signal = "SIGTERM") => {
  const sim = await startSim(args)
  try {
    return await f(sim)
  } finally {
    await stopSim(sim, signal)
  }
}

/** `copies` copies of a corpus's JSON lines as one JSON Lines text, each id prefixed `${tag}${copy}-` (all distinct). */
export const distinctCopies = (lines, tag, copies) => {
  const parts = []
  for (let c = 0; c < copies; c++) for (const line of lines) parts.push(line.replace(/"id": ?"/u, (m) => `${m}${tag}${c}-`))
  return parts.join("\n") + "\n"
}

/** better-sqlite3 as the store builds it, to open a store or collection file directly. */
export const Database = createRequire(Path.join(root, "packages/store/package.json"))("better-sqlite3")

/** The middle value (of an even count, the mean of the two middle ones). */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/** `{ median, min, max }` of some measurements. */
export const spread = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) })

/**
 * A home with one real run in its store: the bundled HotpotQA sample indexed as collection `sample`, then one of its
 * questions run with the default (extractive) engine. Resolves `cli` for that home.
 */
export const sampleRunHome = (home) => {
  const cli = cliIn(home)
  cli("index", Path.join(root, "examples/sample/corpus/hotpotqa-paragraphs.jsonl"), "-c", "sample")
  cli("run", "--dataset", Path.join(root, "examples/sample/questions/hotpotqa.jsonl"), "--limit", "1", "-c", "sample",
    "--quiet")
  return cli
}
