#!/usr/bin/env bash
# The page runtime's checks (docs/page-runtime.md), what `make js-tests` runs:
#   1. the resources in Sources/{HybridBridge,HybridCore}/Resources are what runtime/src builds (rebuilt into a
#      temporary folder and compared byte for byte: edit the modules, then `make runtime`);
#   2. the runtime's unit tests and the hybrid.d.ts check (node's test runner, runtime/test).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v node >/dev/null 2>&1; then
  echo "check-runtime: node is not on PATH (scripts/bootstrap.sh installs nodejs)" >&2
  exit 2
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
node scripts/build-runtime.mjs --out "$out"
stale=0
for built in "$out"/*.js; do
  name=$(basename "$built")
  shipped=$(ls Sources/*/Resources/"$name" 2>/dev/null | head -1)
  if [ -z "$shipped" ] || ! cmp -s "$built" "$shipped"; then
    echo "check-runtime: ${shipped:-Sources/*/Resources/$name} is not what runtime/src builds:" >&2
    diff -u "${shipped:-/dev/null}" "$built" | head -40 >&2 || true
    stale=1
  fi
done
if ((stale)); then
  echo "check-runtime: edit runtime/src, not the generated resources, and run \`make runtime\`" >&2
  exit 1
fi
echo "check-runtime: the resources are what runtime/src builds"

node --test --test-reporter=spec runtime/test/*.test.mjs
