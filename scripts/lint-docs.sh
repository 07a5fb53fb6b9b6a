#!/usr/bin/env bash
# Fails when a public declaration of a product has no `///` doc comment: swift-format's
# AllPublicDeclarationsHaveDocumentation rule, the only rule turned on in `.swift-format`.
#
#   scripts/lint-docs.sh                         every product's sources (what `make lint` runs)
#   scripts/lint-docs.sh Sources/HybridGTK ...   only these folders or files
#   LINT_DOCS_PATHS="Sources/HybridGTK Sources/HybridBlink" scripts/lint-docs.sh
#
# Prints every finding (file:line:column) and exits 1 when there is one.
set -euo pipefail
cd "$(dirname "$0")/.."

products=(
  Sources/HybridBase Sources/HybridHTTP Sources/HybridHealth Sources/HybridEngine Sources/HybridBridge Sources/HybridNetwork Sources/HybridPackages
  Sources/HybridCore Sources/HybridGTK Sources/HybridBlink Sources/HybridServer
  Sources/HybridCrypto Sources/HybridFixtures Sources/HybridWK Sources/HybridUIKit
  Sources/HybridTesting Sources/HybridCommandLine
)
if (($#)); then
  paths=("$@")
elif [[ -n ${LINT_DOCS_PATHS:-} ]]; then
  read -r -a paths <<<"$LINT_DOCS_PATHS"
else
  paths=("${products[@]}")
fi
for path in "${paths[@]}"; do
  # swift-format passes over a path that does not exist without a word.
  if [[ ! -e $path ]]; then
    echo "lint-docs: no such file or folder: $path" >&2
    exit 2
  fi
done

# swift-format ships with the toolchain: on PATH, or next to `swift`.
if command -v swift-format >/dev/null 2>&1; then
  swift_format=swift-format
elif swift=$(command -v swift 2>/dev/null) && [[ -x "$(dirname "$(readlink -f "$swift")")/swift-format" ]]; then
  swift_format="$(dirname "$(readlink -f "$swift")")/swift-format"
else
  echo "lint-docs: swift-format is neither on PATH nor next to swift" >&2
  exit 2
fi

# `lint` always compares the source with what its pretty-printer would make of it, and no
# configuration key turns that off (swiftlang/swift-format#764); the hidden
# --debug-disable-pretty-print skips it, so the rules in `.swift-format` are all that run.
# --strict makes a finding an error, and the exit status non-zero.
set +e
findings=$("$swift_format" lint --strict --recursive --debug-disable-pretty-print \
  --configuration .swift-format "${paths[@]}" 2>&1)
status=$?
set -e

if [[ -n $findings ]]; then printf '%s\n' "$findings"; fi
count=$(grep -c 'AllPublicDeclarationsHaveDocumentation' <<<"$findings" || true)
if ((status != 0)); then
  if ((count > 0)); then
    echo "lint-docs: $count public declaration(s) without a doc comment" >&2
  else
    echo "lint-docs: swift-format failed (exit status $status)" >&2
  fi
  exit 1
fi
echo "lint-docs: every public declaration is documented in ${paths[*]}"
