// `npm pack` of the CLI (its prepack script): copies the bundled sample (examples/sample) into the package, where
// `deepnote demo` finds it after a global install. The copy is git-ignored; the repository's examples/sample is the source.
import { cpSync, rmSync } from "node:fs"

const root = new URL("..", import.meta.url)
const target = new URL("apps/cli/examples/sample", root)
rmSync(target, { recursive: true, force: true })
cpSync(new URL("examples/sample", root), target, { recursive: true })
