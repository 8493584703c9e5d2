// The Effect language service's diagnostics (floating Effects, missing yields, wrong layer wiring, …) run inside every
// `tsc -b`: `npm ci` patches the workspace's TypeScript (the root package's `prepare` script, `effect-language-service
// patch`), and tsconfig.base.json sets the plugin's options — an error-level finding fails the build of its package,
// warnings are printed, suggestions stay in the editor. This check, part of `npm run lint`, fails when the installation
// is not patched (installed with --ignore-scripts, or TypeScript replaced since): the builds would then pass without
// the Effect diagnostics. One type-check of the tree instead of two: the separate `effect-language-service diagnostics`
// run this replaces took ~2.5 CPU-minutes of the suite's ~20.
import { spawnSync } from "node:child_process"

const result = spawnSync("npx", ["effect-language-service", "check"], { encoding: "utf8" })
const output = `${result.stdout ?? ""}${result.stderr ?? ""}`
// both of TypeScript's files (typescript.js, _tsc.js) say "patched with version"; anything else is not patched
if ((output.match(/patched with version/g) ?? []).length !== 2) {
  process.stdout.write(output)
  process.stdout.write(
    "effect diagnostics: TypeScript is not patched, so `tsc -b` skips the Effect diagnostics; run `npm run prepare`\n"
  )
  process.exit(1)
}
process.stdout.write("effect diagnostics: TypeScript is patched; `tsc -b` reports them\n")
