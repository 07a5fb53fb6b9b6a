import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages

// The property checks behind every fuzz target. The same files compile into two places: the
// `HybridFuzzTests` test target, which replays Fuzz/corpus and Fuzz/regressions through them, and
// the libFuzzer harness that scripts/fuzz.sh links (Fuzz/FuzzMain.swift), where a violation aborts
// so libFuzzer keeps the input. No Testing or XCTest here: the harness links neither.

/// A property a fuzz input broke.
struct FuzzViolation: Error, CustomStringConvertible {
    let description: String
}

/// Throws a ``FuzzViolation`` unless `condition` holds.
func require(_ condition: @autoclosure () throws -> Bool, _ message: @autoclosure () -> String) throws {
    guard try condition() else { throw FuzzViolation(description: message()) }
}

/// Every fuzz target: its name (the `FUZZ_TARGET` the harness reads and the directory its corpus,
/// dictionary and regressions live under) and its check.
enum FuzzTarget: String, CaseIterable, Sendable {
    case bridge
    case setCookie = "set-cookie"
    case cookieFile = "cookie-file"
    case contentDisposition = "content-disposition"
    case byteRange = "byte-range"
    case packageManifest = "package-manifest"
    case keyRotation = "key-rotation"
    case remoteConfig = "remote-config"
    case urlPattern = "url-pattern"
    case dcz
    case health
    case serverRequest = "server-request"
    case proxyHeaders = "proxy-headers"
    case responseHeaders = "response-headers"
    case csp
    case httpCacheEntry = "http-cache-entry"
    case pageState = "page-state"

    /// Runs every property of this target on one input; throws the first one broken.
    func check(_ bytes: [UInt8]) throws {
        switch self {
        case .bridge: try BridgeChecks.check(bytes)
        case .setCookie: try CookieChecks.setCookie(bytes)
        case .cookieFile: try CookieChecks.cookieFile(bytes)
        case .contentDisposition: try ContentDispositionChecks.check(bytes)
        case .byteRange: try ByteRangeChecks.check(bytes)
        case .packageManifest: try PackageChecks.manifest(bytes)
        case .keyRotation: try PackageChecks.keyRotation(bytes)
        case .remoteConfig: try ConfigChecks.remoteConfig(bytes)
        case .urlPattern: try ConfigChecks.urlPattern(bytes)
        case .dcz: try DeltaChecks.check(bytes)
        case .health: try HealthChecks.check(bytes)
        case .serverRequest: try ServerChecks.check(bytes)
        case .proxyHeaders: try ProxyChecks.check(bytes)
        case .responseHeaders: try ResponseHeaderChecks.check(bytes)
        case .csp: try CSPChecks.check(bytes)
        case .httpCacheEntry: try HTTPCacheChecks.check(bytes)
        case .pageState: try RestoreChecks.check(bytes)
        }
    }
}

/// Fuzz bytes as text: invalid UTF-8 is repaired, as every caller here receives a `String`.
func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// Fuzz bytes split into fields at newlines (the first `count - 1` newlines; the last field keeps the rest).
func fields(_ bytes: [UInt8], _ count: Int) -> [String] {
    var parts = text(bytes).split(separator: "\n", maxSplits: count - 1, omittingEmptySubsequences: false).map(String.init)
    while parts.count < count { parts.append("") }
    return parts
}

/// The code a rejection carries, checked against the ones its parser documents.
func requireCode(_ error: any Error, in codes: Set<String>, _ what: String) throws {
    guard let error = error as? HybridError else {
        throw FuzzViolation(description: "\(what) threw \(type(of: error)) (\(error)), not a HybridError")
    }
    try require(codes.contains(error.code), "\(what) rejected with code \(error.code), documented: \(codes.sorted())")
}
