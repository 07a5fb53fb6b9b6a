#!/usr/bin/env bash
# Installs what HybridKit needs on Debian 12 (Swift itself must already be on PATH).
# A no-op when everything is present: `apt-get update` runs once, only if something is missing.
set -euo pipefail

packages=(libwebkitgtk-6.0-dev libsoup-3.0-dev libpsl-dev publicsuffix libsodium-dev zlib1g-dev libzstd-dev libcurl4-openssl-dev libssl-dev zstd bsdiff time xvfb xauth chromium nginx fonts-dejavu-core)

# The page runtime's build and tests (docs/page-runtime.md): node, and tsc for the hybrid.d.ts check.
packages+=(nodejs node-typescript)

# scripts/fuzz.sh reads SwiftPM's build plan and the package manifest as JSON.
packages+=(jq python3)

# `hybrid webdriver`'s Selenium suite (scripts/webdriver-tests.sh): a venv for PyPI's selenium, and the
# engines' own drivers its bench compares against (docs/testing.md): chromedriver, and WebKitWebDriver
# with MiniBrowser (webkit2gtk-driver; it brings the WebKitGTK 4.1 build MiniBrowser runs on).
packages+=(python3-venv chromium-driver webkit2gtk-driver)

# The package repository behind a CDN edge (docs/offline-packages.md, "Serving at scale"): the
# rollout load test in `make test` and `hybrid bench rollout` run varnishd, unprivileged on loopback
# ports with a work directory of their own, in front of the origin.
packages+=(varnish)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
  echo "bootstrap: swift is not on PATH (install Swift 6 from swift.org first)" >&2
  exit 1
fi
echo "bootstrap: ready ($(swift --version 2>&1 | head -1))"
