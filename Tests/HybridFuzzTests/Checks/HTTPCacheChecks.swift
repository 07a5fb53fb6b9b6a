import Foundation
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase

/// The proxy cache's stored-entry parser (``HTTPCacheEntry/decode(_:)``), which reads files from
/// disk that may be cut short or changed, and the policy run on what it accepts.
///
/// - Every rejection is `cache_corrupt`.
/// - An accepted entry's body is exactly as long as its head says and it holds no `Set-Cookie`;
///   written again, it reads back as the same entry (and the same bytes again).
/// - Deciding on it in every fetch mode, and updating it with its own headers as a 304 would, does
///   not trap; an updated entry keeps its body.
enum HTTPCacheChecks {
    static func check(_ bytes: [UInt8]) throws {
        let entry: HTTPCacheEntry
        do {
            entry = try HTTPCacheEntry.decode(Data(bytes))
        } catch {
            try requireCode(error, in: ["cache_corrupt"], "HTTPCacheEntry.decode")
            return
        }
        try require(HTTPCachePolicy.values("set-cookie", in: entry.headers).isEmpty, "a stored Set-Cookie was read back")
        let encoded = entry.encoded()
        let again = try HTTPCacheEntry.decode(encoded)
        try require(again == entry, "an entry written back reads as another: \(entry) vs \(again)")
        try require(again.encoded() == encoded, "writing an entry twice gives other bytes")
        let now = entry.responseTime.addingTimeInterval(30)
        for mode in HTTPCachePolicy.Mode.allCases {
            _ = HTTPCachePolicy.decide(mode: mode, requestHeaders: entry.headers, entry: entry, now: now)
        }
        _ = HTTPCachePolicy.isStorable(method: "GET", requestHeaders: [], status: entry.status, responseHeaders: entry.headers)
        let updated = HTTPCachePolicy.updated(entry, with: entry.headers, requestTime: now, responseTime: now)
        try require(updated.body == entry.body, "a 304 update changed the body")
    }
}
