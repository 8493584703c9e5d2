// `node scripts/write-cli-help.mjs` (from apps/cli, after tsc): writes dist/help.txt, the top-level help of the built
// command as plain unwrapped text, which `bin/deepnote.mjs` prints (fitted to the terminal) without loading the CLI.
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"

const help = execFileSync(process.execPath, ["dist/src/main.js", "--help"], {
  env: { ...process.env, NO_COLOR: "1", COLUMNS: "100000" },
  encoding: "utf8"
})
writeFileSync("dist/help.txt", help)
