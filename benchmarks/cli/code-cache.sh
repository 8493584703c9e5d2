#!/usr/bin/env bash
# V8's code cache for the one-file bundle (apps/cli/bin/run-bundle.mjs), measured from outside with farm-bench, A and B
# alternating. Run from the repo root after `npm run build`:
#   bash benchmarks/cli/code-cache.sh > benchmarks/cli/code-cache.txt
# 1. The same CommonJS bundle through the entry point, the cache on (A, after one start has written it) and off (B,
#    NODE_DISABLE_COMPILE_CACHE=1).
# 2. The entry point as built (A) against the ES module bundle it replaced (B): the same inputs bundled by esbuild as
#    an ES module, loaded by `import()` (Node 22.1+ with its own compile cache in a fresh folder), as before 2026-11-28.
set -euo pipefail
cd "$(dirname "$0")/../.."
node=${NODE:-node}
home=$(mktemp -d)
esm=apps/cli/dist/bench-esm
trap 'rm -rf "$home" "$esm"' EXIT
export NODE_COMPILE_CACHE="$home/node-compile-cache"
node -e '
const { build } = require("esbuild")
build({ absWorkingDir: process.cwd(), entryPoints: { deepnote: "apps/cli/dist/src/main.js" }, outdir: process.argv[1],
  bundle: true, platform: "node", target: "node20", format: "esm", logLevel: "warning",
  external: ["better-sqlite3", "usearch", "@node-rs/jieba", "pg-native", "embedded-postgres"],
  banner: { js: "import { createRequire as r } from \"node:module\"; const require = r(import.meta.url);" } })
' "$esm"
cat > "$esm/start.mjs" <<'JS'
import module from "node:module"
module.enableCompileCache?.()
await import("./deepnote.js")
JS
$node apps/cli/bin/deepnote.mjs index examples/sample/corpus/hotpotqa-paragraphs.jsonl --collection sample \
  --home "$home" >/dev/null 2>&1
question="Which magazine was started first, Arthur's Magazine or First for Women?"
echo "# $(date -u +%FT%TZ) $($node --version) $(git rev-parse --short HEAD) load: $(cut -d' ' -f1-3 /proc/loadavg)"
for args in "status --help" "ask"; do
  if [ "$args" = ask ]; then set -- ask "$question" --collection sample --home "$home"; else set -- $args; fi
  echo "## deepnote $args: code cache on (A) / off (B)"
  quoted=$(printf '%q ' "$@")
  farm-bench -n 11 --timeout 300 --vs "env NODE_DISABLE_COMPILE_CACHE=1 $node apps/cli/bin/deepnote.mjs $quoted" \
    -- $node apps/cli/bin/deepnote.mjs "$@" 2>&1 | grep -E "^(A|B|A/B) (cpu|wall|peak)"
  echo "## deepnote $args: entry point (A) / the ES module bundle it replaced (B)"
  farm-bench -n 11 --timeout 300 --vs "$node $esm/start.mjs $quoted" \
    -- $node apps/cli/bin/deepnote.mjs "$@" 2>&1 | grep -E "^(A|B|A/B) (cpu|wall|peak)"
done
