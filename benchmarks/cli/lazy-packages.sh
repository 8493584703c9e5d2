#!/usr/bin/env bash
# The bundle whose CommonJS packages undici, ws and pg load on first use (A: scripts/bundle-cli.mjs since 2026-12-01)
# against one that evaluates them as every command starts (B: the same build with --eager-packages, beside it). Both
# run through bin/run-bundle.mjs with their own code cache, written by a first start before timing; then
# `status --help`, `status` and `ask` on the bundled sample are timed with farm-bench, A and B alternating. Run from the
# repo root after `npm run build`:
#   bash benchmarks/cli/lazy-packages.sh > benchmarks/cli/lazy-packages.txt
set -euo pipefail
cd "$(dirname "$0")/../.."
source benchmarks/cli/time-commands.sh
node=${NODE:-node}
home=$(mktemp -d)
eager=apps/cli/dist/bundle-eager
trap 'rm -rf "$home" "$eager"' EXIT
$node scripts/bundle-cli.mjs --outdir "$eager" --eager-packages
rm -rf apps/cli/dist/bundle/.code-cache
$node apps/cli/bin/deepnote.mjs index examples/sample/corpus/hotpotqa-paragraphs.jsonl --collection sample \
  --home "$home" >/dev/null 2>&1
$node benchmarks/cli/run-bundle-at.mjs "$eager/deepnote.cjs" status --home "$home" >/dev/null 2>&1
echo "# $(date -u +%FT%TZ) $($node --version) $(git rev-parse --short HEAD) load: $(cut -d' ' -f1-3 /proc/loadavg)"
time_commands "$home" "packages loaded on first use (A) / at start (B)" "$node" benchmarks/cli/run-bundle-at.mjs "$eager/deepnote.cjs"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
