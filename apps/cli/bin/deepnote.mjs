#!/usr/bin/env node
// The `deepnote` command. `--version` and the top-level help are answered from files the build writes, without loading
// the Effect runtime (benchmarks/cli: ~0.05 s of CPU instead of ~1.3 s); everything else runs the full command line,
// from the one-file bundle the build writes (scripts/bundle-cli.mjs) while every file it was made from is older than it
// or holds the content it was made from, else from the unbundled build (after a bare `tsc -b` of a change, say).
// This file is committed (not built) so that `npm ci` links `node_modules/.bin/deepnote` to it before any build.
import { existsSync, readFileSync, statSync, utimesSync } from "node:fs"
import module from "node:module"

const root = new URL("../../../", import.meta.url)
const dist = new URL("../dist/", import.meta.url)
const main = new URL("src/main.js", dist)
const bundle = new URL("bundle/deepnote.cjs", dist)
const bundleInputs = new URL("bundle/inputs.json", dist)
const help = new URL("help.txt", dist)
const buildInfo = new URL(".tsbuildinfo", dist)
const args = process.argv.slice(2)

// An installed package (npm i -g) holds the bundle and the help and no build state: they are current by construction.
const inCheckout = existsSync(buildInfo)

const builtHelpIsCurrent = () =>
  existsSync(help) && (!inCheckout || statSync(help).mtimeMs >= statSync(buildInfo).mtimeMs)

// stated once per start: the freshness check, the note below and the code cache's key (run-bundle.mjs) all use it
let bundleStat = statSync(bundle, { throwIfNoEntry: false })

// Each input is `[path, SHA-256 of its content when bundled]` (bundle-inputs.mjs; a bare path: a bundle made before the
// hashes were kept). A file newer than the bundle may hold the same content: turbo replays a cached bundle with the
// time it was first made, after `tsc -b` wrote every file anew. Those are read and hashed once; when none changed, the
// bundle's time is brought forward, so that later starts compare times only.
const bundleIsCurrent = async () => {
  if (bundleStat === undefined) return false
  if (!inCheckout) return true
  if (!existsSync(bundleInputs)) return false
  const newer = []
  for (const input of JSON.parse(readFileSync(bundleInputs, "utf8"))) {
    const [path, hash] = typeof input === "string" ? [input, undefined] : input
    const url = new URL(path, root)
    const stat = statSync(url, { throwIfNoEntry: false })
    if (stat === undefined) return false
    if (stat.mtimeMs > bundleStat.mtimeMs) newer.push({ url, hash })
  }
  if (newer.length === 0) return true
  const { holdBundledContent } = await import("./bundle-inputs.mjs")
  if (!holdBundledContent(newer)) return false
  try {
    const now = new Date()
    utimesSync(bundle, now, now)
    bundleStat = statSync(bundle)
  } catch {
    // a checkout this user cannot write: the same check at the next start
  }
  return true
}

const bundled = await bundleIsCurrent()
const entry = bundled ? bundle : existsSync(main) ? main : undefined
// a developer's checkout after a bare `tsc -b`: said once per start on a terminal (the unbundled build starts ~3 s
// slower), never in pipes, where a line on stderr would be taken for the command's own
if (!bundled && entry === main && bundleStat !== undefined && process.stderr.isTTY) {
  process.stderr.write(
    "deepnote: the bundle is older than the build; running the unbundled build (slower to start):"
      + " `npm run build` makes the bundle again\n"
  )
}

if (entry === undefined) {
  process.stderr.write("deepnote: the command is not built: run `npm run build` in the repository first\n")
  process.exitCode = 1
} else if (args.length === 1 && args[0] === "--version") {
  const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
  process.stdout.write(`${version}\n`)
} else if ((args.length === 0 || (args.length === 1 && (args[0] === "--help" || args[0] === "-h"))) && builtHelpIsCurrent()) {
  const { helpWidth, wrapHelp } = await import(new URL("src/render/Wrap.js", dist).href)
  const columns = process.stdout.isTTY ? process.stdout.columns : Number(process.env.COLUMNS || Number.NaN)
  process.stdout.write(wrapHelp(readFileSync(help, "utf8"), helpWidth(columns)))
} else if (entry === bundle) {
  // with V8's code cache, kept beside the bundle (run-bundle.mjs, benchmarks/cli); loaded here, not for --version
  const { runBundle } = await import("./run-bundle.mjs")
  runBundle(bundle, { stat: bundleStat })
} else {
  // Node 22.1+ keeps V8's compiled code of the modules it loads (in the OS's temporary folder, or NODE_COMPILE_CACHE);
  // Node 20 has no such cache and goes on without it
  module.enableCompileCache?.()
  await import(entry.href)
}
