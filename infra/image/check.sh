#!/usr/bin/env bash
# CI's check of the container image without a Docker engine: runs the image's build steps (build.sh) on a fresh clone
# of HEAD, then, from the built tree alone and as the image would (DEEPNOTE_HOME on a fresh directory), `deepnote
# --version`, `deepnote demo` and `deepnote serve` until `/readyz` answers 200; and checks every compose file with
# `docker-compose config` when that tool is installed. Exit 0 when all hold.
repo=$(cd "$(dirname "$0")/../.." && pwd)
check_name="image check"
# shellcheck source=../../scripts/lib/scratch.sh
source "$repo/scripts/lib/scratch.sh"
git clone -q "$repo" "$work/src"
twice_if_needed bash "$work/src/infra/image/build.sh" "$work/src" "$work/app" > "$work/build.log" 2>&1 || {
  tail -30 "$work/build.log"
  echo "image build steps failed"
  exit 1
}
tail -1 "$work/build.log"
deepnote="$work/app/apps/cli/bin/deepnote.mjs"
export DEEPNOTE_HOME="$work/data"
mkdir -p "$DEEPNOTE_HOME"
cd "$DEEPNOTE_HOME"
node "$deepnote" --version
node "$deepnote" demo > "$work/demo.log" 2>&1 || { tail -20 "$work/demo.log"; echo "demo failed in the image tree"; exit 1; }
grep -m1 "Look at it" "$work/demo.log"
# V8's code cache of the command (apps/cli/bin/run-bundle.mjs): written beside the bundle by the first start
ls "$work/app/apps/cli/dist/bundle/.code-cache/deepnote.cjs.$(node -p 'process.version + "-" + process.arch')"-*.bin \
  > /dev/null 2>&1 \
  || { echo "no code cache beside the bundle after the demo"; exit 1; }
echo "code cache written beside the bundle"
serve_until_ready node "$deepnote"
if command -v docker-compose > /dev/null 2>&1; then
  # in the scratch clone: each `.env.example` becomes the `.env` its README says to write
  for example in "$work"/src/infra/*/.env.example; do
    if [ -e "$example" ]; then cp "$example" "$(dirname "$example")/.env"; fi
  done
  for file in "$work"/src/infra/*/docker-compose.yml; do
    (cd "$(dirname "$file")" && DEEPNOTE_API_KEY_PEPPER=check docker-compose -f "$file" config -q) \
      || { echo "docker-compose config failed: ${file#"$work"/src/}"; exit 1; }
    echo "compose ok: ${file#"$work"/src/}"
  done
else
  echo "docker-compose not installed: compose files not checked"
fi
echo "image check passed"
