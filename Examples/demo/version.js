// The package version this copy of the demo was packed as (`make demo` packs a v2 with this file changed).
window.DEMO_VERSION = 1;
