#!/usr/bin/env bash
# The bundle whose CommonJS packages undici, ws and pg load on first use (A: scripts/bundle-cli.mjs since 2026-12-01)
# against one that evaluates them as every command starts (B: the same build with --eager-packages, beside it). Both
# run through bin/run-bundle.mjs with their own code cache, written by a first start before timing; then
# `status --help`, `status` and `ask` on the bundled sample are timed with farm-bench, A and B alternating. Run from the
# repo root after `npm run build`:
#   bash benchmarks/cli/lazy-packages.sh > benchmarks/cli/lazy-packages.txt
set -euo pipefail
cd "$(dirname "$0")/../.."
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
question="Which magazine was started first, Arthur's Magazine or First for Women?"
for args in "status --help" "status" "ask"; do
  case "$args" in
    ask) set -- ask "$question" --collection sample --home "$home" ;;
    status) set -- status --home "$home" ;;
    *) set -- $args ;;
  esac
  echo "## deepnote $args: packages loaded on first use (A) / at start (B)"
  quoted=$(printf '%q ' "$@")
  farm-bench -n 11 --timeout 300 --vs "$node benchmarks/cli/run-bundle-at.mjs $eager/deepnote.cjs $quoted" \
    -- $node apps/cli/bin/deepnote.mjs "$@" 2>&1 | grep -E "^(A|B|A/B) (cpu|wall|peak)"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
