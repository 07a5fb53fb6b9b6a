#!/usr/bin/env bash
# `hybrid webdriver` driven by stock Selenium (PyPI `selenium`, installed into a venv under .build/)
# on both engines: a package page and a network page, the endpoint's refusals (docs/testing.md).
# Skips — saying why — only when a package it needs is missing: python3-venv, selenium from PyPI,
# or chromium for the Blink run. `--bench`: the ratios against chromedriver instead.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/webdriver-venv
skip() { echo "webdriver-tests: SKIPPED ($1)"; exit 0; }

python3 -c 'import venv, ensurepip' 2>/dev/null || skip "python3-venv is not installed: bash scripts/bootstrap.sh"
if ! "$venv/bin/python" -c 'import selenium' 2>/dev/null; then
  python3 -m venv "$venv" || skip "python3 -m venv failed"
  "$venv/bin/pip" install -q 'selenium>=4.20' || skip "pip could not install selenium from PyPI"
fi
[ -x .build/debug/hybrid ] || swift build --product hybrid

if [ "${1:-}" = "--bench" ]; then
  command -v chromedriver >/dev/null || skip "chromedriver is not installed (Debian chromium-driver): bash scripts/bootstrap.sh"
  exec xvfb-run -a "$venv/bin/python" Tests/WebDriver/selenium_suite.py --hybrid .build/debug/hybrid --bench
fi

status=0
for engine in webkit blink; do
  if [ "$engine" = blink ] && ! command -v chromium >/dev/null; then
    echo "webdriver-tests: SKIPPED on blink (chromium is not installed)"
    continue
  fi
  xvfb-run -a "$venv/bin/python" Tests/WebDriver/selenium_suite.py --hybrid .build/debug/hybrid --engine "$engine" || status=1
done
exit $status
