// Runs the one-file CommonJS bundle (dist/bundle/deepnote.cjs) with V8's code cache: compiling the bundle was about
// 40 % of every start of the command on Node 20 (which has no compile cache of its own), and V8 can instead deserialize
// the code it compiled at an earlier start. The cache is written beside the bundle (`.code-cache/`) as the first start
// that finds none exits (or before it changes a V8 flag, `v8FlagsChanging`), so that it holds the functions that start
// compiled as it ran as well as the top level, as Node's own compile cache does (benchmarks/cli: 7–15 % less CPU per
// start than a cache made before running). There is one per bundle, Node version, architecture and set of V8 flags (V8
// rejects a cache made under other flags), made again when the bundle changes (its size and modification time head the
// file; the build removes the folder). Where that folder cannot be written (a read-only installation) the command
// compiles as before. NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it does Node's own cache. benchmarks/cli measures
// it.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { basename, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import vm from "node:vm"

/**
 * What the command emits on `process` just before it changes a V8 flag as it runs (`eval` and `export`:
 * `apps/cli/src/runs/LeanHeap.ts`, which exports the same name). V8 rejects a cache made under other flags than a
 * start's, so a cache still to be written is written then, under the flags the process started with, not at exit.
 */
const v8FlagsChanging = "deepnote:v8-flags-changing"

/** A short, stable name for the flags V8 was started with (they decide whether a cache is accepted). */
const flagsKey = () => {
  const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" ")
  let hash = 5381
  for (let i = 0; i < flags.length; i++) hash = ((hash * 33) ^ flags.charCodeAt(i)) >>> 0
  return hash.toString(36)
}

/** The cached code, or undefined when there is none for this bundle (missing, unreadable, made for another build). */
const readCache = (file, key) => {
  let data
  try {
    data = readFileSync(file)
  } catch {
    return undefined
  }
  const end = data.indexOf(10)
  return end > 0 && data.subarray(0, end).toString() === key ? data.subarray(end + 1) : undefined
}

/** Writes the cache whole or not at all (a rename), so that concurrent starts never read half a file. */
const writeCache = (file, key, script) => {
  try {
    mkdirSync(dirname(file), { recursive: true })
    const partial = `${file}.${process.pid}`
    writeFileSync(partial, Buffer.concat([Buffer.from(`${key}\n`), script.createCachedData()]))
    renameSync(partial, file)
  } catch {
    // a read-only installation: the next start compiles again
  }
}

/**
 * Loads and runs the CommonJS bundle at `bundleUrl` as Node's own loader would, with the cache when there is one
 * (`stat`: the bundle's, when the caller has it already).
 * Says what becomes of the cache: "used", "written at exit" (there was none for this build, Node and flags: written
 * as the process exits, or before it changes a V8 flag; a process ended by a signal it does not handle writes none, and
 * the next start tries again) or "off".
 */
export const runBundle = (
  bundleUrl,
  { disabled = process.env.NODE_DISABLE_COMPILE_CACHE !== undefined, stat: known = undefined } = {}
) => {
  const file = fileURLToPath(bundleUrl)
  const stat = known ?? statSync(file)
  const key = `${stat.size} ${stat.mtimeMs}`
  const name = `${basename(file)}.${process.version}-${process.arch}-${flagsKey()}.bin`
  const cacheFile = join(dirname(file), ".code-cache", name)
  const cachedData = disabled ? undefined : readCache(cacheFile, key)
  const source = readFileSync(file, "utf8").replace(/^#!/, "//")
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData
  })
  const cache = disabled
    ? "off"
    : cachedData !== undefined && script.cachedDataRejected !== true
    ? "used"
    : "written at exit"
  if (cache === "written at exit") {
    const write = () => {
      process.off("exit", write)
      process.off(v8FlagsChanging, write)
      writeCache(cacheFile, key, script)
    }
    process.once("exit", write)
    process.once(v8FlagsChanging, write)
  }
  const module = { exports: {} }
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file))
  return cache
}
