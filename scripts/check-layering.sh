#!/usr/bin/env bash
# Keeps what docs/adopting.md promises about the layering true (run by `make lint`):
# - the `hybrid` CLI imports no C module and names no engine type (it uses providers, as an app does);
# - only `hybrid bench` and `hybrid demo` reach test support;
# - no product's sources import test support.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
fail() { echo "check-layering: $1" >&2; status=1; }

if hits=$(grep -rlE '^import (CWebKitGTK|CHybridGTK|CSodium|CZstd)$' Sources/hybrid); then
  fail "the CLI imports a C module: $hits"
fi
if hits=$(grep -rlE '\b(GTKWebEngine|BlinkWebEngine|WKWebEngine)\b' Sources/hybrid); then
  fail "the CLI names an engine type instead of going through its provider: $hits"
fi
if hits=$(grep -rl '^import HybridTestSupport$' Sources/hybrid | grep -vE '^Sources/hybrid/(Commands/Bench[A-Za-z]*|Demo/[A-Za-z]*)\.swift$'); then
  fail "test support reached from a command other than bench and demo: $hits"
fi
for product in HybridCore HybridCrypto HybridGTK HybridBlink HybridServer HybridWK HybridUIKit; do
  if hits=$(grep -rl '^import HybridTestSupport$' "Sources/$product"); then
    fail "product $product imports test support: $hits"
  fi
done
((status == 0)) && echo "check-layering: ok"
exit $status
