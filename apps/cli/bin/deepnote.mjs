#!/usr/bin/env node
// The `deepnote` command. `--version` and the top-level help are answered from files the build writes, without loading
// the Effect runtime (benchmarks/cli: ~0.05 s of CPU instead of ~1.3 s); everything else runs the full command line.
// This file is committed (not built) so that `npm ci` links `node_modules/.bin/deepnote` to it before any build.
import { existsSync, readFileSync, statSync } from "node:fs"

const dist = new URL("../dist/", import.meta.url)
const main = new URL("src/main.js", dist)
const help = new URL("help.txt", dist)
const args = process.argv.slice(2)

const builtHelpIsCurrent = () =>
  existsSync(help) && statSync(help).mtimeMs >= statSync(new URL(".tsbuildinfo", dist)).mtimeMs

if (!existsSync(main)) {
  process.stderr.write("deepnote: the command is not built: run `npm run build` in the repository first\n")
  process.exitCode = 1
} else if (args.length === 1 && args[0] === "--version") {
  const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
  process.stdout.write(`${version}\n`)
} else if ((args.length === 0 || (args.length === 1 && (args[0] === "--help" || args[0] === "-h"))) && builtHelpIsCurrent()) {
  const { helpWidth, wrapHelp } = await import(new URL("src/render/Wrap.js", dist).href)
  const columns = process.stdout.isTTY ? process.stdout.columns : Number(process.env.COLUMNS || Number.NaN)
  process.stdout.write(wrapHelp(readFileSync(help, "utf8"), helpWidth(columns)))
} else {
  await import(main.href)
}
