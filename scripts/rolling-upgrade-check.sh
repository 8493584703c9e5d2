#!/usr/bin/env bash
# CI's check of a rolling upgrade across real builds: the build just before the newest store migration (the parent of
# the commit that added it, or OLD_REV when given) and this checkout share one home. The old build indexes the sample
# and runs a question; this build runs one (migrating the store and the collection); then the old build runs and lists
# again. Whether it may is what the migrations it does not know declare (`olderBuildsMayOpen` of every store and
# collection migration after its own schema; `LaterMigration` in packages/core): when all say yes, it must run and
# list both builds' runs; otherwise it must refuse with one line naming the newer build, exit 1, leaving the store's
# bytes as they were. Run by .ci/run as one test; needs the git history (a clone, not an export).
#
#   bash scripts/rolling-upgrade-check.sh [OLD_REV]
repo=$(cd "$(dirname "$0")/.." && pwd)
check_name="rolling-upgrade check"
# shellcheck source=lib/scratch.sh
source "$repo/scripts/lib/scratch.sh"

cd "$repo"
# a shallow clone has no older builds: fetch the history first when the clone can (its origin answers)
if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
  git fetch -q --unshallow 2>/dev/null || fail "a shallow clone whose history cannot be fetched: no older build to try"
fi
# the newest store migration is the highest-numbered V<N> file (other files there are helpers)
newest=$(ls packages/store/src/Migrations/ | sed -nE 's/^V([0-9]+)[A-Za-z].*\.ts$/\1/p' | sort -n | tail -1)
added=$(git log -1 --format=%H --diff-filter=A -- "packages/store/src/Migrations/V${newest}"[A-Za-z]*.ts)
old_rev=${1:-$(git rev-parse --verify -q "$added^")} || fail "no commit before the newest store migration ($added)"
echo "old build: $(git log -1 --format='%h %s' "$old_rev" | cut -c1-100)"
git clone -q --no-checkout "$repo" "$work/old" && git -C "$work/old" checkout -q "$old_rev" \
  || fail "cannot check out $old_rev"
(cd "$work/old" && twice_if_needed npm ci --no-audit --no-fund && npm run build) > "$work/old-build.log" 2>&1 \
  || { tail -20 "$work/old-build.log"; fail "the old build ($old_rev) did not install and build"; }
npm run build > "$work/build.log" 2>&1 || { tail -20 "$work/build.log"; fail "this checkout did not build"; }

old=(node "$work/old/apps/cli/bin/deepnote.mjs")
new=(node "$repo/apps/cli/bin/deepnote.mjs")
home="$work/home"
sample="$repo/examples/sample"
run_one() { "$@" run --dataset "$sample/questions/hotpotqa.jsonl" --limit 1 -c sample --home "$home" --quiet; }

"${old[@]}" index "$sample/corpus/hotpotqa-paragraphs.jsonl" -c sample --home "$home" > "$work/old-index.log" 2>&1 \
  || { tail -5 "$work/old-index.log"; fail "the old build could not index the sample"; }
run_one "${old[@]}" > "$work/old-run.log" 2>&1 || { tail -5 "$work/old-run.log"; fail "the old build's first run failed"; }
run_one "${new[@]}" > "$work/new-run.log" 2>&1 \
  || { tail -5 "$work/new-run.log"; fail "this build could not run on the old build's home"; }

# what the migrations the old build does not know declare
expect=$(node --input-type=module -e "
  const load = (root, path) => import(root + '/packages/' + path)
  const [oldStore, newStore] = await Promise.all(['$work/old', '$repo'].map((r) => load(r, 'store/dist/src/Migrations.js')))
  const [oldFiles, newFiles] = await Promise.all(
    ['$work/old', '$repo'].map((r) => load(r, 'retrieval/dist/src/Index/CollectionMigrations.js'))
  )
  // every migration after the old build's last must be a later one that says yes (those before the registry did not)
  const allSay = (later, from, to) =>
    Array.from({ length: to - from }, (_, i) => from + 1 + i)
      .every((id) => later.some((m) => m.id === id && m.olderBuildsMayOpen))
  const opens = allSay(newStore.laterMigrations, oldStore.schemaVersion, newStore.schemaVersion) &&
    allSay(newFiles.laterMigrations, oldFiles.latestMigration, newFiles.latestMigration)
  console.log(opens ? 'opens' : 'refused', oldStore.schemaVersion, newStore.schemaVersion)
") || fail "cannot read the two builds' migrations"
read -r verdict old_schema new_schema <<< "$expect"
echo "store schema: old build $old_schema, this build $new_schema; the old build should find the home: $verdict"
[ "$old_schema" -lt "$new_schema" ] || fail "the old build ($old_schema) is not older than this one ($new_schema)"

if [ "$verdict" = opens ]; then
  run_one "${old[@]}" > "$work/old-again.log" 2>&1 \
    || { tail -5 "$work/old-again.log"; fail "the old build could not run on the home this build migrated"; }
  "${old[@]}" status --home "$home" > "$work/old-status.txt" 2>&1 \
    || { tail -5 "$work/old-status.txt"; fail "the old build's status failed"; }
  listed=$(grep -c " completed " "$work/old-status.txt" || true)
  [ "$listed" -eq 3 ] || { cat "$work/old-status.txt"; fail "the old build listed $listed completed runs, not 3"; }
  echo "the old build ran and listed all 3 runs on the migrated home"
else
  before=$(sha256sum "$home/deepnote.sqlite" | cut -d' ' -f1)
  set +e
  "${old[@]}" status --home "$home" > "$work/old-status.txt" 2>&1
  code=$?
  set -e
  [ "$code" -eq 1 ] || { cat "$work/old-status.txt"; fail "the old build exited $code on a home it may not use, not 1"; }
  grep -q "was written by a newer DeepNote" "$work/old-status.txt" \
    || { cat "$work/old-status.txt"; fail "the old build's refusal does not name the newer build"; }
  [ "$(sha256sum "$home/deepnote.sqlite" | cut -d' ' -f1)" = "$before" ] || fail "the refused store was changed"
  echo "the old build refused the migrated home with one line, exit 1, store unchanged"
fi
# this build still reads everything
"${new[@]}" status --home "$home" > "$work/new-status.txt" 2>&1 || fail "this build's status failed afterwards"
echo "$check_name: passed"
