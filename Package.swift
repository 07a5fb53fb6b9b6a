// swift-tools-version: 6.0
import PackageDescription

// Strict settings for every target, in one place (as swift-log does).
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let linux = TargetDependencyCondition.when(platforms: [.linux])

var targets: [Target] = [
    // Policy and protocols: Foundation + Dispatch only, compiles on Linux and Apple.
    .target(name: "HybridCore", resources: [.copy("Resources/hybrid.js"), .copy("Resources/hybrid.d.ts"), .copy("Resources/hybrid-proxy.js")]),

    // WebKitGTK 6.0 (engine, GTK 4, libsoup 3, GLib) through pkg-config.
    .systemLibrary(
        name: "CWebKitGTK",
        pkgConfig: "webkitgtk-6.0",
        providers: [.apt(["libwebkitgtk-6.0-dev"])]
    ),
    // libsodium: Ed25519 signatures and SHA-256.
    .systemLibrary(
        name: "CSodium",
        pkgConfig: "libsodium",
        providers: [.apt(["libsodium-dev"])]
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
    // Engine adapter: Blink (Chromium) through the DevTools protocol on --remote-debugging-pipe.
    .target(name: "HybridBlink", dependencies: ["HybridCore"]),
    // The HTTP side on libsoup 3's SoupServer: `hybrid serve` and the tests' loopback origin.
    .target(
        name: "HybridServer",
        dependencies: [
            "HybridCore",
            .target(name: "CWebKitGTK", condition: linux),
            .target(name: "CHybridGTK", condition: linux),
        ]
    ),
    // Cryptography on libsodium (Linux); CryptoKit on Apple platforms.
    .target(
        name: "HybridCrypto",
        dependencies: ["HybridCore", .target(name: "CSodium", condition: linux)]
    ),
    .target(
        name: "HybridTestSupport",
        dependencies: [
            "HybridCore",
            .target(name: "HybridGTK", condition: linux),
            .target(name: "HybridServer", condition: linux),
            .target(name: "CWebKitGTK", condition: linux),
            .target(name: "CHybridGTK", condition: linux),
        ]
    ),
    .executableTarget(
        name: "hybrid",
        dependencies: [
            "HybridCore",
            "HybridCrypto",
            // Page, image and server fixtures for `hybrid bench` and `hybrid demo` only: no
            // other command reaches test support (docs/adopting.md).
            "HybridTestSupport",
            .target(name: "HybridBlink", condition: linux),
            .target(name: "HybridGTK", condition: linux),
            .target(name: "HybridServer", condition: linux),
        ]
    ),
    .testTarget(name: "HybridCoreTests", dependencies: ["HybridCore", "HybridCrypto"]),
    // Offline packages over real HTTP (updater, resume, faults) against HybridServer's loopback server.
    .testTarget(name: "HybridPackageTests", dependencies: ["HybridCore", "HybridCrypto", "HybridServer"]),
    .testTarget(name: "HybridServerTests", dependencies: ["HybridServer", "HybridCore", "HybridTestSupport"]),
    // Remote config (rollout, signatures, cache) and static serving: hybrid serve and nginx, same clients.
    .testTarget(name: "HybridConfigTests", dependencies: ["HybridCore", "HybridCrypto", "HybridServer", "HybridTestSupport"]),
    // The end-to-end suite on the real engine. An executable, not a test bundle: the Swift test
    // runner keeps the main thread to itself and drains the main queue on whichever worker thread
    // is free, but WebKit must stay on one thread. Here GLib owns the main thread and runs the
    // MainActor (GLibMainLoop.run), exactly as in the app. Run: `hybrid-engine-tests [--filter X]`.
    .executableTarget(
        name: "hybrid-engine-tests",
        dependencies: [
            "HybridCore",
            "HybridCrypto",
            "HybridTestSupport",
            .target(name: "HybridGTK", condition: linux),
            .target(name: "HybridServer", condition: linux),
            .target(name: "HybridBlink", condition: linux),
        ],
        path: "Tests/HybridGTKTests"
    ),
]

// The Apple engine: WKWebView adapter and a UIKit screen. Their sources compile only where
// WebKit/UIKit exist (`#if canImport`), so on Linux these are empty modules.
targets += [
    .target(name: "HybridWK", dependencies: ["HybridCore"]),
    .target(name: "HybridUIKit", dependencies: ["HybridCore", "HybridWK"]),
]
#if os(Linux)
// Linux only: compiles the HybridWK and HybridUIKit sources (symlinked into the target) against
// a declared surface of Apple's WebKit/UIKit/Foundation symbols, so every Linux build
// type-checks the Apple adapter. Proves Swift consistency, not runtime behaviour (docs/apple.md).
targets.append(.target(
    name: "HybridAppleCheck", dependencies: ["HybridCore"],
    swiftSettings: [.define("HYBRID_APPLE_CHECK")]
))
// The adapter's pure translations (URL patterns, script values, errors, requests, cookies).
targets.append(.testTarget(name: "HybridAppleCheckTests", dependencies: ["HybridAppleCheck", "HybridCore"]))
#endif

for target in targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: strictSettings)
    target.swiftSettings = settings
}

let package = Package(
    name: "HybridKit",
    platforms: [.macOS(.v13), .iOS(.v15)],
    // What an app links (docs/adopting.md): the core, an engine or two, the crypto that verifies
    // packages and config, and the server for those who host a repository. `Examples/QuickStart`
    // builds against these alone, so a missing product fails CI before it fails an adopter.
    products: [
        .library(name: "HybridCore", targets: ["HybridCore"]),
        .library(name: "HybridCrypto", targets: ["HybridCrypto"]),
        .library(name: "HybridGTK", targets: ["HybridGTK"]),
        .library(name: "HybridBlink", targets: ["HybridBlink"]),
        .library(name: "HybridServer", targets: ["HybridServer"]),
        .library(name: "HybridWK", targets: ["HybridWK"]),
        .library(name: "HybridUIKit", targets: ["HybridUIKit"]),
        .executable(name: "hybrid", targets: ["hybrid"]),
    ],
    targets: targets,
    swiftLanguageModes: [.v6]
)
