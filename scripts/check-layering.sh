#!/usr/bin/env bash
# Keeps what docs/adopting.md promises about the layering true (run by `make lint`):
# - the command-line tools (hybrid, hybrid-bench, hybrid-demo) import no C module and name no
#   engine type (they use providers, as an app does);
# - no product's sources import test support.
# What the compiler keeps on its own is not repeated here: `hybrid` does not depend on
# HybridFixtures (only hybrid-bench and hybrid-demo do), so an import of it fails the build.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
fail() { echo "check-layering: $1" >&2; status=1; }

tools=(Sources/hybrid Sources/hybrid-bench Sources/hybrid-demo Sources/HybridCommandLine)
if hits=$(grep -rlE '^import (CWebKitGTK|CHybridGTK|CSodium|CZstd|CSoup|CHybridCurl)$' "${tools[@]}"); then
  fail "a command-line tool imports a C module: $hits"
fi
if hits=$(grep -rlE '\b(GTKWebEngine|BlinkWebEngine|WKWebEngine)\b' "${tools[@]}"); then
  fail "a command-line tool names an engine type instead of going through its provider: $hits"
fi
for product in HybridCore HybridCrypto HybridGTK HybridBlink HybridServer HybridWK HybridUIKit HybridWebDriver; do
  if hits=$(grep -rl '^import HybridFixtures$' "Sources/$product"); then
    fail "product $product imports test support: $hits"
  fi
done
((status == 0)) && echo "check-layering: ok"
exit $status
