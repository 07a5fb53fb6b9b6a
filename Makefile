# HybridKit: `make demo` runs the demo tour in the container; `make test` runs every test.
# Both install what they need first (scripts/bootstrap.sh; a no-op when all is present).

.PHONY: all bootstrap build test unit-tests engine-tests demo clean

all: build

bootstrap:
	@bash scripts/bootstrap.sh

build: bootstrap
	swift build

# Unit, server and package tests run under `swift test`; the end-to-end suite on the real engine
# is the `hybrid-engine-tests` executable (WebKit must own the main thread: see docs/architecture-notes.md).
test: bootstrap
	swift build --build-tests
	swift build --product hybrid-engine-tests
	$(MAKE) --no-print-directory unit-tests engine-tests

unit-tests:
	xvfb-run -a swift test --skip-build --no-parallel

engine-tests:
	xvfb-run -a .build/debug/hybrid-engine-tests --no-parallel

demo: bootstrap
	swift build --product hybrid
	.build/debug/hybrid demo Examples/demo --out demo-out

clean:
	rm -rf .build demo-out
