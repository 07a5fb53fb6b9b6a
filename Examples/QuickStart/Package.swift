// swift-tools-version: 6.2
// An app outside HybridKit: it reaches HybridKit only through its products, as an adopter's
// app does (docs/adopting.md). `make example` builds it and runs its smoke test, so a product
// that is missing, or an app that would need an internal symbol, fails CI here first.
import PackageDescription

let package = Package(
    name: "QuickStart",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "HybridKit", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "QuickStart",
            dependencies: [
                .product(name: "HybridCore", package: "HybridKit"),
                .product(name: "HybridCrypto", package: "HybridKit"),
                .product(name: "HybridGTK", package: "HybridKit"),
                .product(name: "HybridServer", package: "HybridKit"),
                .product(name: "HybridWebDriver", package: "HybridKit"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
