// Runs a variant of the bundle built beside the real one (its path first, then the command's arguments) as
// bin/deepnote.mjs runs the real one, with the code cache beside it:
//   node benchmarks/cli/run-bundle-at.mjs apps/cli/dist/bundle-eager/deepnote.cjs status --help
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { runBundle } from "../../apps/cli/bin/run-bundle.mjs"

// taken off the command line before the bundle reads it
const [bundle] = process.argv.splice(2, 1)
runBundle(pathToFileURL(resolve(bundle)))
