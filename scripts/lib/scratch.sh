# Shared by the CI checks that try a built or installed DeepNote from outside the checkout (infra/image/check.sh,
# scripts/pack-install-check.sh); sourced, not run. Gives `work` (a scratch directory removed at exit, with the server
# started by `serve_until_ready` stopped first), `fail MESSAGE` (one line, exit 1), `twice_if_needed COMMAND…` and
# `serve_until_ready COMMAND…`.
set -euo pipefail
work=$(mktemp -d)
server=""
check_name=${check_name:-check}
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "$check_name: $1"
  exit 1
}

# Runs COMMAND… and, when it fails, once more after five seconds: for the steps that install from the npm registry, whose
# transient failures (a reset connection, a registry 5xx) are not the project's. A step that fails twice fails. The
# image check wraps its whole build script (install, build, prune), so a real build failure costs one more build.
twice_if_needed() {
  "$@" && return 0
  echo "$check_name: \`$1 $2\` failed once; trying it again in 5 s"
  sleep 5
  "$@"
}

# Starts `COMMAND… serve --host 127.0.0.1 --port PORT --no-auth` in the background (log: $work/serve.log) and waits up
# to a minute for /readyz to answer 200; sets `server` (its pid) and `port`.
serve_until_ready() {
  port=$(node -e "const s=require('node:net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
  "$@" serve --host 127.0.0.1 --port "$port" --no-auth > "$work/serve.log" 2>&1 &
  server=$!
  local ready="fetch('http://127.0.0.1:$port/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
  for _ in $(seq 1 120); do
    if node -e "$ready"; then
      echo "serve: /readyz 200 on port $port"
      return 0
    fi
    kill -0 "$server" 2>/dev/null || { tail -20 "$work/serve.log"; fail "deepnote serve exited"; }
    sleep 0.5
  done
  tail -20 "$work/serve.log"
  fail "deepnote serve never became ready"
}
