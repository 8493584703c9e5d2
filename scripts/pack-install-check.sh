#!/usr/bin/env bash
# CI's check that DeepNote installs the way a new user installs it, from the package tarballs alone: packs every
# workspace package (`npm pack --workspaces`, after the build), installs the CLI globally into a temporary prefix from
# its tarball (plus the inspector's, the one package of ours it needs beside its one-file bundle; everything else comes
# from the npm registry), then from a directory outside the checkout runs `deepnote --version`, `deepnote demo` and
# `deepnote serve`, and calls the server from a separate project that installs only the typed HTTP client
# (@deepnote-rag/api and the packages it imports) — which must not pull in the server's dependencies (no SQLite, no
# server). Exit 0 when all hold. Run by .ci/run as one test.
repo=$(cd "$(dirname "$0")/.." && pwd)
check_name="pack-install check"
# shellcheck source=lib/scratch.sh
source "$repo/scripts/lib/scratch.sh"

cd "$repo"
npm run build > "$work/build.log" 2>&1 || { tail -20 "$work/build.log"; fail "the build failed"; }
mkdir -p "$work/tarballs"
npm pack --workspaces --pack-destination "$work/tarballs" > "$work/pack.log" 2>&1 || { tail -20 "$work/pack.log"; fail "npm pack failed"; }
tarball() { ls "$work"/tarballs/deepnote-rag-"$1"-*.tgz; }
echo "packed $(ls "$work"/tarballs | wc -l) packages ($(du -sh "$work/tarballs" | cut -f1)); the CLI: $(du -h "$(tarball cli)" | cut -f1)"

# the global install, from a directory that is not the checkout (npm must not see the workspace)
mkdir -p "$work/elsewhere" "$work/prefix"
cd "$work/elsewhere"
twice_if_needed npm install --global --prefix "$work/prefix" --no-audit --no-fund "$(tarball cli)" "$(tarball inspector)" \
  > "$work/install.log" 2>&1 || { tail -30 "$work/install.log"; fail "npm install --global of the CLI's tarball failed"; }
deepnote="$work/prefix/bin/deepnote"
[ -x "$deepnote" ] || fail "the global install has no executable bin/deepnote"
export DEEPNOTE_HOME="$work/home"
echo "deepnote --version: $("$deepnote" --version)"
"$deepnote" --help > "$work/help.txt" || fail "deepnote --help failed"
grep -q -- "- demo" "$work/help.txt" || fail "deepnote --help does not list the demo command"
"$deepnote" demo > "$work/demo.log" 2>&1 || { tail -20 "$work/demo.log"; fail "deepnote demo failed from the global install"; }
grep -m1 "Look at it" "$work/demo.log"

serve_until_ready "$deepnote"

# a separate project with the typed client only
mkdir -p "$work/client"
cd "$work/client"
echo '{ "name": "client", "version": "1.0.0", "private": true, "type": "module" }' > package.json
twice_if_needed npm install --no-audit --no-fund "$(tarball api)" "$(tarball core)" "$(tarball eval)" "$(tarball text)" \
  > "$work/client-install.log" 2>&1 || { tail -30 "$work/client-install.log"; fail "installing the typed client failed"; }
for heavy in better-sqlite3 @deepnote-rag/server @deepnote-rag/store @effect/sql-sqlite-node; do
  [ ! -e "node_modules/$heavy" ] || fail "the typed client pulled in $heavy"
done
cat > ask.mjs <<'EOF'
import { Api, AskRequest } from "@deepnote-rag/api"
import { FetchHttpClient, HttpApiClient } from "@effect/platform"
import { Effect } from "effect"

const baseUrl = process.argv[2]
const program = Effect.gen(function*() {
  const client = yield* HttpApiClient.make(Api, { baseUrl })
  const payload = new AskRequest({ question: "Who founded the company that makes the iPhone?", collection: "sample" })
  const reply = yield* client.ask.ask({ payload })
  return JSON.stringify(reply.result.answer)
}).pipe(Effect.provide(FetchHttpClient.layer))
console.log(`typed client answer: ${await Effect.runPromise(program)}`)
EOF
node ask.mjs "http://127.0.0.1:$port" || { tail -20 "$work/serve.log"; fail "the typed client could not ask the installed server"; }
echo "pack-install check passed"
