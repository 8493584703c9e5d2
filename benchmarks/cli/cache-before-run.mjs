// The code cache as bin/run-bundle.mjs made it before 2026-12-01, for benchmarks/cli/cache-after-run.sh to measure
// against: written right after compiling the bundle, before anything runs (so it holds the bundle's top level and not
// the functions a start compiles as it runs). Its cache file is the first argument (a scratch path); the command's
// arguments follow:
//   node benchmarks/cli/cache-before-run.mjs /tmp/x.bin status --help
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname } from "node:path"
import { fileURLToPath } from "node:url"
import vm from "node:vm"

const file = fileURLToPath(new URL("../../apps/cli/dist/bundle/deepnote.cjs", import.meta.url))
// taken off the command line before the bundle reads it
const [cacheFile] = process.argv.splice(2, 1)
const cachedData = existsSync(cacheFile) ? readFileSync(cacheFile) : undefined
const source = readFileSync(file, "utf8").replace(/^#!/, "//")
const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
  filename: file,
  cachedData
})
if (cachedData === undefined || script.cachedDataRejected === true) writeFileSync(cacheFile, script.createCachedData())
const module = { exports: {} }
script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file))
