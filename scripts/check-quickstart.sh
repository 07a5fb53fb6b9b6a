#!/usr/bin/env bash
# The README's Swift quick start is the code Examples/QuickStart compiles and runs:
#   1. README.md's Swift block under "## Quick start: app developers (Swift)" equals, byte for
#      byte, the lines between `// quick-start:begin` and `// quick-start:end` in
#      Examples/QuickStart/Sources/QuickStart/App.swift;
#   2. the example imports only Foundation and HybridKit's products (SwiftPM lets a package
#      import a dependency's C modules, such as CWebKitGTK, which no adopter should need).
# Prints a diff (README → App.swift) and exits 1 when either fails.
set -euo pipefail
cd "$(dirname "$0")/.."

readme=README.md
app=Examples/QuickStart/Sources/QuickStart/App.swift
heading='## Quick start: app developers (Swift)'
status=0

from_readme=$(mktemp)
from_app=$(mktemp)
trap 'rm -f "$from_readme" "$from_app"' EXIT

# The first ```swift fence after the heading, up to its closing fence.
awk -v heading="$heading" '
  $0 == heading { in_section = 1; next }
  in_section && /^## / { exit }
  in_section && !in_block && $0 == "```swift" { in_block = 1; next }
  in_block && $0 == "```" { found = 1; exit }
  in_block { print }
  END { if (!found) exit 1 }
' "$readme" >"$from_readme" || {
  echo "check-quickstart: no \`\`\`swift block under \"$heading\" in $readme" >&2
  exit 1
}
awk '
  $0 == "// quick-start:end" { found = 1; exit }
  in_block { print }
  $0 == "// quick-start:begin" { in_block = 1 }
  END { if (!found) exit 1 }
' "$app" >"$from_app" || {
  echo "check-quickstart: no // quick-start:begin … // quick-start:end markers in $app" >&2
  exit 1
}
if ! diff -u --label "$readme (Swift quick start)" --label "$app (between the markers)" "$from_readme" "$from_app"; then
  echo "check-quickstart: the README's quick start and the example differ; edit $app, then paste it into $readme" >&2
  status=1
fi

allowed='^(Foundation|Dispatch|HybridCore|HybridCrypto|HybridGTK|HybridBlink|HybridServer|HybridWebDriver)$'
while IFS=: read -r file line module; do
  if [[ ! $module =~ $allowed ]]; then
    echo "check-quickstart: $file:$line imports $module, which is not a HybridKit product (docs/adopting.md)" >&2
    status=1
  fi
done < <(grep -rnE '^(@[A-Za-z_]+ )*import ' Examples/QuickStart/Sources | sed -E 's/^([^:]+):([0-9]+):.*import +([A-Za-z_]+ +)?([A-Za-z0-9_.]+).*/\1:\2:\4/')

if ((status == 0)); then
  echo "check-quickstart: README quick start = $app ($(wc -l <"$from_app") lines); imports are products only"
fi
exit $status
