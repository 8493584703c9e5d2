// Adds lockfile entries for platform-specific optional packages that npm left out.
//
// Why: the registry reachable from this project's machines does not serve some platform binaries of other systems
// (e.g. @rollup/rollup-android-arm-eabi, @turbo/darwin-64). npm then omits them from package-lock.json, and `npm ci`
// refuses the lockfile ("Missing: … from lock file"). Each missing package gets an entry with its version and the
// os/cpu/libc it is for, exactly as a lockfile made against the full registry records it, so `npm ci` skips it on
// other platforms. Run after any `npm install` that rewrote the lockfile: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from "node:fs"

const path = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(path, "utf8"))
const packages = lock.packages

const platformOf = (name) => {
  const turbo = /^@turbo\/(darwin|linux|windows)-(64|arm64)$/.exec(name)
  if (turbo) return { os: turbo[1] === "windows" ? "win32" : turbo[1], cpu: turbo[2] === "64" ? "x64" : "arm64" }
  const rollup = /^@rollup\/rollup-([a-z0-9]+)-([a-z0-9]+)(?:-([a-z0-9]+))?$/.exec(name)
  if (rollup) {
    const [, os, cpu, abi] = rollup
    return { os, cpu, ...(os !== "linux" ? {} : abi?.startsWith("musl") ? { libc: "musl" } : abi?.startsWith("gnu") ? { libc: "glibc" } : {}) }
  }
  const esbuild = /^@esbuild\/([a-z0-9]+)-([a-z0-9]+)$/.exec(name)
  if (esbuild) return { os: esbuild[1], cpu: esbuild[2] }
  return undefined
}

let added = 0
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = location === "" ? "node_modules" : `${location}/node_modules`
    const candidates = [`${base}/${name}`, `node_modules/${name}`]
    if (candidates.some((c) => packages[c] !== undefined)) continue
    const platform = platformOf(name)
    if (platform === undefined) continue
    packages[`node_modules/${name}`] = {
      version,
      cpu: [platform.cpu],
      ...(platform.libc ? { libc: [platform.libc] } : {}),
      optional: true,
      os: [platform.os]
    }
    added++
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)))
writeFileSync(path, JSON.stringify(lock, null, 2) + "\n")
console.log(`complete-lockfile: ${added} platform entries added`)
