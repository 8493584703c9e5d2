#!/usr/bin/env bash
# The container image's build steps, as one script: the Dockerfile runs it (`RUN bash infra/image/build.sh /src /app`)
# and CI runs it on a fresh clone (infra/image/check.sh), so what the image holds is built and tried on every change
# even where no Docker engine runs.
#   build.sh SRC OUT  — in SRC (a checkout without node_modules or dist): install exactly from the lockfile, build,
#                       drop the development dependencies, and copy what runs into OUT (package manifests, built
#                       output, the production node_modules, the CLI's entry point and one-file bundle, the bundled sample).
set -euo pipefail
src=$(cd "$1" && pwd)
out=$2
cd "$src"
npm ci --no-audit --no-fund
npm run build
npm prune --omit=dev --no-audit --no-fund
mkdir -p "$out"
out=$(cd "$out" && pwd)
cp -a package.json package-lock.json node_modules "$out/"
for dir in packages/* apps/*; do
  mkdir -p "$out/$dir"
  cp -a "$dir/package.json" "$out/$dir/"
  if [ -d "$dir/dist/src" ]; then mkdir -p "$out/$dir/dist" && cp -a "$dir/dist/src" "$out/$dir/dist/"; fi
  for extra in node_modules public bin dist/help.txt dist/bundle; do
    if [ -e "$dir/$extra" ]; then mkdir -p "$(dirname "$out/$dir/$extra")" && cp -a "$dir/$extra" "$out/$dir/$extra"; fi
  done
done
cp -a examples "$out/"
echo "image tree: $(du -sh "$out" | cut -f1) in $out"
