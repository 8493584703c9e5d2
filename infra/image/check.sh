#!/usr/bin/env bash
# CI's check of the container image without a Docker engine: runs the image's build steps (build.sh) on a fresh clone
# of HEAD, then, from the built tree alone and as the image would (DEEPNOTE_HOME on a fresh directory), `deepnote
# --version`, `deepnote demo` and `deepnote serve` until `/readyz` answers 200; and checks every compose file with
# `docker-compose config` when that tool is installed. Exit 0 when all hold.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
git clone -q "$repo" "$work/src"
bash "$work/src/infra/image/build.sh" "$work/src" "$work/app" > "$work/build.log" 2>&1 || {
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
port=$(node -e "const s=require('node:net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
node "$deepnote" serve --host 127.0.0.1 --port "$port" --no-auth > "$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 1 120); do
  if node -e "fetch('http://127.0.0.1:$port/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"; then
    echo "serve: /readyz 200 on port $port"
    break
  fi
  if ! kill -0 "$server" 2>/dev/null; then tail -20 "$work/serve.log"; echo "serve exited"; exit 1; fi
  sleep 0.5
done
node -e "fetch('http://127.0.0.1:$port/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))" \
  || { tail -20 "$work/serve.log"; echo "serve never became ready"; exit 1; }
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
