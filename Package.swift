// swift-tools-version: 6.2
// 6.2 is what the sources need, on every platform: `isolated deinit` (SE-0371) and
// `nonisolated(nonsending)` (SE-0461) first compile with Swift 6.2 (Xcode 26).
import PackageDescription

// Strict settings for every target, in one place (as swift-log does).
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let linux = TargetDependencyCondition.when(platforms: [.linux])

var targets: [Target] = [
    // The modules below the container, each kept apart by the compiler (docs/architecture.md):
    // values and errors every layer speaks; bounded HTTP downloads; health events and sinks;
    // the engine contract; offline packages (which know no engine and no view).
    .target(name: "HybridBase"),
    .target(name: "HybridHTTP", dependencies: ["HybridBase", .target(name: "CHybridCurl", condition: linux)]),
    .target(name: "HybridHealth", dependencies: ["HybridBase"]),
    .target(name: "HybridEngine", dependencies: ["HybridBase"]),
    .target(name: "HybridPackages", dependencies: ["HybridBase", "HybridHTTP", "HybridHealth"]),
    // The bridge: wire format, router, host, byte store and the built-in modules, with the page
    // runtime and transport it injects; it knows the engine seam and no view, package or config.
    .target(name: "HybridBridge", dependencies: ["HybridBase", "HybridEngine"],
            resources: [.copy("Resources/hybrid.js"), .copy("Resources/hybrid.d.ts"), .copy("Resources/hybrid-transport.js")]),
    // Cookies (the app's jar, Set-Cookie, sync with the engine's store) and the request proxy (a
    // bridge module carrying XHR/fetch/form requests natively, with the page's CSP, SRI and mixed
    // content kept); it knows the bridge and the engine seam and no view, package or config.
    .target(name: "HybridNetwork", dependencies: ["HybridBase", "HybridHTTP", "HybridEngine", "HybridBridge", "HybridHealth",
                                             .target(name: "CCrypto", condition: linux), .target(name: "CPSL", condition: linux)],
            resources: [.copy("Resources/hybrid-proxy.js")]),
    .target(name: "HybridCore", dependencies: ["HybridBase", "HybridHTTP", "HybridHealth", "HybridEngine", "HybridPackages",
                                          "HybridBridge", "HybridNetwork"],
            resources: [.copy("Resources/hybrid-prefetch.js"), .copy("Resources/hybrid-health.js"), .copy("Resources/hybrid-restore.js"),
                        .copy("Resources/hybrid-prerender.js"), .copy("Resources/hybrid-speculation.js")]),

    // libcurl's easy and multi interfaces for bounded downloads on Linux (the library
    // FoundationNetworking already links): its callbacks run in the read loop, so a limit stops
    // a body before more is read. Apple platforms use URLSession (HybridHTTP/HTTPStream.swift).
    .target(name: "CHybridCurl", linkerSettings: [.linkedLibrary("curl", .when(platforms: [.linux]))]),

    // WebKitGTK 6.0 (engine, GTK 4, libsoup 3, GLib) through pkg-config.
    .systemLibrary(
        name: "CWebKitGTK",
        pkgConfig: "webkitgtk-6.0",
        providers: [.apt(["libwebkitgtk-6.0-dev"])]
    ),
    // OpenSSL's libcrypto: SHA-256/384/512 for subresource integrity on proxied requests (libsodium
    // has no SHA-384; libcurl already loads libcrypto.so.3). Apple platforms use CryptoKit.
    .systemLibrary(
        name: "CCrypto",
        pkgConfig: "libcrypto",
        providers: [.apt(["libssl-dev"])]
    ),
    // libpsl: the Public Suffix List, for the cookie jar's `Domain` checks and Fetch Metadata's
    // same-site (the library WebKitGTK's libsoup uses; its data is Debian's `publicsuffix`).
    .systemLibrary(
        name: "CPSL",
        pkgConfig: "libpsl",
        providers: [.apt(["libpsl-dev"])]
    ),
    // libsodium: Ed25519 signatures and SHA-256.
    .systemLibrary(
        name: "CSodium",
        pkgConfig: "libsodium",
        providers: [.apt(["libsodium-dev"])]
    ),
    // libzstd: byte-level patches between package versions (zstd with the old file as a raw prefix).
    .systemLibrary(
        name: "CZstd",
        pkgConfig: "libzstd",
        providers: [.apt(["libzstd-dev"])]
    ),
    // The tiny C shim: GObject macros, variadic constructors, libdispatch main-queue hooks, and
    // the X11 move that keeps a pooled view rendered off-screen (Xlib, which GTK's X11 backend uses).
    .target(name: "CHybridGTK", dependencies: [.target(name: "CWebKitGTK", condition: linux)],
            linkerSettings: [.linkedLibrary("X11", .when(platforms: [.linux]))]),

    // Engine adapter: WebKitGTK behind the WebEngine seam (translation only).
    .target(
        name: "HybridGTK",
        dependencies: [
            "HybridCore",
            .target(name: "CWebKitGTK", condition: linux),
            .target(name: "CHybridGTK", condition: linux),
        ]
    ),
    // The testing double: the engine contract over a fake driver, so an app tests its bridge modules,
    // delegates and navigation rules without an engine (as swift-nio ships NIOEmbedded).
    .target(name: "HybridTesting", dependencies: ["HybridCore"]),
    // Engine adapter: Blink (Chromium) through the DevTools protocol on --remote-debugging-pipe.
    .target(name: "HybridBlink", dependencies: ["HybridCore"]),
    // W3C WebDriver for containers: routing, sessions, element references, errors and the page's
    // atoms, mapped onto the engine seam; a loopback listener hands it requests (docs/testing.md).
    .target(name: "HybridWebDriver", dependencies: ["HybridCore", "HybridCrypto"],
            resources: [.copy("Resources/webdriver-atoms.js")]),
    // libsoup 3 and GLib alone (no engine): what HybridServer is built on.
    .systemLibrary(
        name: "CSoup",
        pkgConfig: "libsoup-3.0",
        providers: [.apt(["libsoup-3.0-dev"])]
    ),
    // The HTTP side on libsoup 3's SoupServer: `hybrid serve` and the tests' loopback origin.
    // Links libsoup and GLib only, never the browser engine.
    .target(
        name: "HybridServer",
        dependencies: [
            "HybridBase",
            .target(name: "CSoup", condition: linux),
        ]
    ),
    // Cryptography on libsodium (Linux); CryptoKit on Apple platforms. Also the zstd delta codec
    // for byte-level package patches where libzstd is linked (Linux); Apple builds without it
    // fall back to full blobs, or plug in their own `DeltaCodec` (docs/offline-packages.md).
    .target(
        name: "HybridCrypto",
        dependencies: ["HybridBase", "HybridPackages", .target(name: "CSodium", condition: linux), .target(name: "CZstd", condition: linux)]
    ),
    // HybridKit's own test fixtures (engine harness, pages, images, routes, the nginx runner):
    // not a product, never linked by one. (`HybridTesting`, the product, is the fake engine an
    // app tests its own code with.)
    .target(
        name: "HybridFixtures",
        dependencies: [
            "HybridCore",
            "HybridCrypto",  // zlib, for TestPNG.decode
            .target(name: "HybridGTK", condition: linux),
            .target(name: "HybridServer", condition: linux),
            .target(name: "CWebKitGTK", condition: linux),
            .target(name: "CHybridGTK", condition: linux),
        ]
    ),
    // What the command-line tools share: the command protocol, the argument reader, progress
    // bars, the private Xvfb display. Not a product.
    .target(name: "HybridCommandLine"),
    // The shipped tool. It links no test fixtures: `hybrid bench` and `hybrid demo` run the
    // executables below, which do.
    .executableTarget(
        name: "hybrid",
        dependencies: [
            "HybridCore",
            "HybridCrypto",
            "HybridCommandLine",
            "HybridWebDriver",
            .target(name: "HybridBlink", condition: linux),
            .target(name: "HybridGTK", condition: linux),
            .target(name: "HybridServer", condition: linux),
        ]
    ),
    // `hybrid-bench SUITE --json` (also `hybrid bench`): the benchmark suites, with the page,
    // image and server fixtures of HybridFixtures.
    .executableTarget(
        name: "hybrid-bench",
        dependencies: [
            "HybridCore",
            "HybridCrypto",
            "HybridCommandLine",
            "HybridFixtures",
            .target(name: "HybridBlink", condition: linux),
            .target(name: "HybridGTK", condition: linux),
            .target(name: "HybridServer", condition: linux),
        ]
    ),
    // `hybrid-demo` (also `hybrid demo`, what `make demo` runs): the feature tour.
    .executableTarget(
        name: "hybrid-demo",
        dependencies: [
            "HybridCore",
            "HybridCrypto",
            "HybridCommandLine",
            "HybridFixtures",
            .target(name: "HybridGTK", condition: linux),
            .target(name: "HybridServer", condition: linux),
        ]
    ),
    .testTarget(name: "HybridCoreTests", dependencies: ["HybridCore", "HybridCrypto", "HybridTesting", "HybridFixtures"]),
    // Offline packages over real HTTP (updater, resume, faults) against HybridServer's loopback server.
    .testTarget(name: "HybridPackageTests", dependencies: ["HybridCore", "HybridCrypto", "HybridServer", "HybridFixtures"]),
    // The WebDriver endpoint over the fake engine (Selenium on the real engines: scripts/webdriver-tests.sh).
    .testTarget(name: "HybridWebDriverTests", dependencies: ["HybridWebDriver", "HybridCore", "HybridTesting"]),
    .testTarget(name: "HybridServerTests", dependencies: ["HybridServer", "HybridCore", "HybridCrypto", "HybridFixtures"]),
    // Fuzz regression inputs and seed corpora replayed through the fuzz targets' property checks
    // (Tests/HybridFuzzTests/Checks, which scripts/fuzz.sh also links into the libFuzzer harness).
    .testTarget(name: "HybridFuzzTests", dependencies: ["HybridCore", "HybridCrypto", "HybridServer"]),
    // Remote config (rollout, signatures, cache) and static serving: hybrid serve and nginx, same clients.
    .testTarget(name: "HybridConfigTests", dependencies: ["HybridCore", "HybridCrypto", "HybridServer", "HybridFixtures", "HybridTesting"]),
    // The command-line layer's parsing rules, and every tool's tables against --help and docs/cli.md.
    .testTarget(name: "HybridCommandLineTests", dependencies: ["HybridCommandLine", "hybrid", "hybrid-bench", "hybrid-demo"]),
    // The end-to-end suite on the real engine. An executable, not a test bundle: the Swift test
    // runner keeps the main thread to itself and drains the main queue on whichever worker thread
    // is free, but WebKit must stay on one thread. Here GLib owns the main thread and runs the
    // MainActor (GLibMainLoop.run), exactly as in the app. Run: `hybrid-engine-tests [--filter X]`.
    .executableTarget(
        name: "hybrid-engine-tests",
        dependencies: [
            "HybridCore",
            "HybridCrypto",
            "HybridFixtures",
            .target(name: "HybridGTK", condition: linux),
            .target(name: "HybridServer", condition: linux),
            .target(name: "HybridBlink", condition: linux),
        ],
        path: "Tests/HybridGTKTests"
    ),
]

// The Apple engine: WKWebView adapter and a UIKit screen. Each file compiles where it can import
// its Apple modules (`#if canImport(WebKit)`; UIKit files also `canImport(UIKit)`).
var appleStandIns: [Target.Dependency] = []
#if os(Linux)
// Linux only: stand-ins named like Apple's modules (WebKit, UIKit, and FoundationAppleOnly for the
// Apple-only Foundation API they re-export), declaring exactly the Apple symbols the adapters use.
// HybridWK and HybridUIKit build against them as the separate modules they are on Xcode, each
// file with its own imports, so a missing import or a cross-module use of an internal symbol
// fails every Linux build. Proves Swift consistency, not runtime behaviour (docs/apple.md).
// No other target depends on them: an app that links HybridCore, HybridGTK or HybridBlink never
// builds them.
targets += [
    .target(name: "FoundationAppleOnly", path: "Sources/AppleStandIns/FoundationAppleOnly"),
    .target(name: "UIKit", dependencies: ["FoundationAppleOnly"], path: "Sources/AppleStandIns/UIKit"),
    .target(name: "WebKit", dependencies: ["FoundationAppleOnly", "UIKit"], path: "Sources/AppleStandIns/WebKit"),
]
appleStandIns = [.target(name: "WebKit", condition: linux), .target(name: "UIKit", condition: linux)]
#endif
targets += [
    .target(name: "HybridWK", dependencies: ["HybridCore"] + appleStandIns),
    .target(name: "HybridUIKit", dependencies: ["HybridCore", "HybridWK"] + appleStandIns),
]
#if os(Linux)
// docs/apple.md's example as an app module of its own: only products' modules and UIKit.
targets.append(.target(
    name: "HybridAppleExample",
    dependencies: ["HybridCore", "HybridWK", "HybridUIKit", .target(name: "UIKit", condition: linux)]
))
// The adapter's pure translations (URL patterns, script values, errors, requests, cookies).
targets.append(.testTarget(
    name: "HybridAppleCheckTests",
    dependencies: ["HybridWK", "HybridCore", .target(name: "WebKit", condition: linux)]
))
#endif

for target in targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: strictSettings)
    target.swiftSettings = settings
}

let package = Package(
    name: "HybridKit",
    platforms: [.macOS(.v13), .iOS(.v16)],
    // What an app links (docs/adopting.md): the core, an engine or two, the crypto that verifies
    // packages and config, the server for those who host a repository, and the testing double. `Examples/QuickStart`
    // builds against these alone, so a missing product fails CI before it fails an adopter.
    products: [
        .library(name: "HybridCore", targets: ["HybridCore"]),
        .library(name: "HybridCrypto", targets: ["HybridCrypto"]),
        .library(name: "HybridGTK", targets: ["HybridGTK"]),
        .library(name: "HybridBlink", targets: ["HybridBlink"]),
        .library(name: "HybridServer", targets: ["HybridServer"]),
        .library(name: "HybridWK", targets: ["HybridWK"]),
        .library(name: "HybridUIKit", targets: ["HybridUIKit"]),
        .library(name: "HybridTesting", targets: ["HybridTesting"]),
        .library(name: "HybridWebDriver", targets: ["HybridWebDriver"]),
        .executable(name: "hybrid", targets: ["hybrid"]),
    ],
    targets: targets,
    swiftLanguageModes: [.v6]
)
