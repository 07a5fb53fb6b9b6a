# HybridKit: `make demo` runs the demo tour in the container; `make test` runs every test.
# Both install what they need first (scripts/bootstrap.sh; a no-op when all is present).

.PHONY: all bootstrap build lint test unit-tests engine-tests webdriver-tests cdn-tests example quickstart-check demo clean fuzz fuzz-smoke runtime js-tests tsan asan

all: build

# A target that imports a module of this package it does not declare as a dependency fails the
# build (SwiftPM otherwise finds any built module on the search path): the edges between
# HybridKit's modules in Package.swift are the ones the code can use (docs/architecture.md).
SWIFT_BUILD := swift build --explicit-target-dependency-import-check error

bootstrap:
	@bash scripts/bootstrap.sh

build: bootstrap
	$(SWIFT_BUILD)

# Every public declaration of HybridCore and of each product has a doc comment (swift-format's
# AllPublicDeclarationsHaveDocumentation, configured in .swift-format; see scripts/lint-docs.sh).
# Always every product's sources: a LINT_DOCS_PATHS left in the environment does not narrow it.
lint: bootstrap
	@LINT_DOCS_PATHS= bash scripts/lint-docs.sh
	@bash scripts/check-layering.sh
	@python3 scripts/module-graph.py --check

# Unit, server and package tests run under `swift test`; the end-to-end suite on the real engine
# is the `hybrid-engine-tests` executable (WebKit must own the main thread: see docs/architecture-notes.md).
test: bootstrap
	$(MAKE) --no-print-directory lint quickstart-check js-tests
	$(SWIFT_BUILD) --build-tests
	$(SWIFT_BUILD) --product hybrid-engine-tests
	$(MAKE) --no-print-directory unit-tests engine-tests webdriver-tests cdn-tests
	$(MAKE) --no-print-directory fuzz-smoke
	$(MAKE) --no-print-directory example

# The page runtime (docs/page-runtime.md): `runtime` assembles Sources/{HybridBridge,HybridCore}/Resources/*.js
# from the modules in runtime/src; `js-tests` checks that the checked-in scripts are what they
# build, runs the runtime's unit tests in node and checks hybrid.d.ts against hybrid.js (seconds).
runtime:
	node scripts/build-runtime.mjs

js-tests: bootstrap
	@bash scripts/check-runtime.sh

unit-tests:
	xvfb-run -a swift test --skip-build --no-parallel

# A test failing once is retried alone and named FLAKY; failing twice fails (scripts/engine-tests.sh).
engine-tests:
	@bash scripts/engine-tests.sh

# `hybrid webdriver` driven by stock Selenium (PyPI, into .build/webdriver-venv) on both engines;
# skips, saying why, only when python3-venv, selenium or chromium is missing (docs/testing.md).
webdriver-tests:
	@bash scripts/webdriver-tests.sh

# The package repository behind a CDN edge (docs/offline-packages.md, "Serving at scale"): 50 installs
# update through varnishd in front of `hybrid serve` and are halted back (`hybrid bench rollout` at a
# small size), and deploy/nginx/hybrid-repo.conf gives every file the caching `hybrid serve` gives it.
cdn-tests:
	@bash scripts/cdn-tests.sh

# libFuzzer targets for every parser of untrusted bytes (docs/fuzzing.md), built with
# -sanitize=fuzzer,address in .build/fuzz: `fuzz` runs each for FUZZ_SECONDS, `fuzz-smoke` for 10 s
# (inside `make test`). A crash fails the run and is kept, minimised, in Fuzz/regressions/<target>/,
# which the unit tests replay (Tests/HybridFuzzTests).
FUZZ_SECONDS ?= 60
fuzz: bootstrap
	bash scripts/fuzz.sh run $(FUZZ_SECONDS)

fuzz-smoke: bootstrap
	FUZZ_JOBS=2 bash scripts/fuzz.sh run 10

# The unit suite under ThreadSanitizer (`tsan`) and AddressSanitizer + UBSan for the C shims
# (`asan`), each a full build in a scratch path of its own (.build/tsan, .build/asan); any report
# fails the run (docs/sanitizers.md, suppressions with their reasons in scripts/sanitizers/).
# Not part of `make test`: each takes longer than its budget allows.
tsan: bootstrap
	bash scripts/sanitize.sh tsan

asan: bootstrap
	bash scripts/sanitize.sh asan

# The app outside the package (docs/adopting.md): Examples/QuickStart depends on HybridKit by path
# and links its products only, so a missing product or an internal symbol fails its build. Its
# App.swift is the README's Swift quick start (checked byte for byte); the smoke test publishes a
# shop on loopback and runs that code in the real engine (exit 0 ok, 1 failed, 2 timed out).
# Its build lives in Examples/QuickStart/.build.
example: bootstrap quickstart-check
	swift build --package-path Examples/QuickStart
	xvfb-run -a Examples/QuickStart/.build/debug/QuickStart --smoke --timeout 60

quickstart-check:
	@bash scripts/check-quickstart.sh

demo: bootstrap
	swift build --product hybrid
	swift build --product hybrid-demo
	.build/debug/hybrid demo Examples/demo --out demo-out

clean:
	rm -rf .build Examples/QuickStart/.build demo-out
