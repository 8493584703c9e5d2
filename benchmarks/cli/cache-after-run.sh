#!/usr/bin/env bash
# V8's code cache of the bundle made as the first start exits (A: bin/run-bundle.mjs since 2026-12-01, holding the
# functions that start compiled as it ran) against one made right after compiling, before anything runs (B:
# cache-before-run.mjs, as run-bundle.mjs did before). Each cache is written by the same first command, an `index` of
# the bundled sample; then `status --help`, `status` and `ask` are timed with farm-bench, A and B alternating. Run from
# the repo root after `npm run build`:
#   bash benchmarks/cli/cache-after-run.sh > benchmarks/cli/cache-after-run.txt
set -euo pipefail
cd "$(dirname "$0")/../.."
source benchmarks/cli/time-commands.sh
node=${NODE:-node}
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
before_run_cache="$home/before-run.bin"
rm -rf apps/cli/dist/bundle/.code-cache
sample=(index examples/sample/corpus/hotpotqa-paragraphs.jsonl --collection sample)
$node apps/cli/bin/deepnote.mjs "${sample[@]}" --home "$home" >/dev/null 2>&1
$node benchmarks/cli/cache-before-run.mjs "$before_run_cache" "${sample[@]}" --home "$home/other" >/dev/null 2>&1
echo "# $(date -u +%FT%TZ) $($node --version) $(git rev-parse --short HEAD) load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# cache bytes: after run $(stat -c %s apps/cli/dist/bundle/.code-cache/*.bin), before run $(stat -c %s "$before_run_cache")"
time_commands "$home" "cache made at exit (A) / before running (B)" "$node" benchmarks/cli/cache-before-run.mjs "$before_run_cache"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
