// `node scripts/make-executable.mjs FILE…`: marks built command-line entry points executable (tsc writes them 0644,
// so the `bin` link npm makes to them would answer "Permission denied").
import { chmodSync } from "node:fs"

for (const file of process.argv.slice(2)) chmodSync(file, 0o755)
