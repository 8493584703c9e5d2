#!/usr/bin/env bash
# CPU cost of starting the `deepnote` command, measured from outside with farm-bench (each pair alternates A B A B …).
# Run from the repo root after `npm run build`:  bash benchmarks/cli/startup.sh > benchmarks/cli/startup.txt
# A = the entry point users run (apps/cli/bin/deepnote.mjs: --version and the top-level help without loading Effect),
# B = the full CLI unbundled (apps/cli/dist/src/main.js, what `deepnote` ran before the entry point and the bundle).
# For `ask`, A runs the one-file bundle (apps/cli/dist/bundle/deepnote.cjs, through the entry point) and B the unbundled CLI.
set -euo pipefail
cd "$(dirname "$0")/../.."
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
node apps/cli/bin/deepnote.mjs index examples/sample/corpus/hotpotqa-paragraphs.jsonl --collection sample --home "$home" >/dev/null
echo "# $(date -u +%FT%TZ) $(node --version) $(git rev-parse --short HEAD) load: $(cut -d' ' -f1-3 /proc/loadavg)"
for args in "--version" "--help"; do
  echo "## deepnote $args"
  farm-bench -n 9 --vs "node apps/cli/dist/src/main.js $args" -- node apps/cli/bin/deepnote.mjs $args 2>&1 | grep -E "^(A|B|A/B) (cpu|wall|peak)"
done
echo "## deepnote ask (the sample, extractive engine)"
question="Which magazine was started first, Arthur's Magazine or First for Women?"
farm-bench -n 9 --timeout 300 --vs "node apps/cli/dist/src/main.js ask \"$question\" --collection sample --home $home" \
  -- node apps/cli/bin/deepnote.mjs ask "$question" --collection sample --home "$home" 2>&1 | grep -E "^(A|B|A/B) (cpu|wall|peak)"
