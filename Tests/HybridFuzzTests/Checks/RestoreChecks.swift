import Foundation
@testable import HybridBase
@testable import HybridCore

/// Page-state snapshots an app stored (``PageState/decode(_:policy:now:)``) and the reports pages
/// post to the restore handler (``PageStateReport/parse(_:maxBytes:)``).
///
/// - A snapshot decodes or fails with one of the documented `restore_*` codes, never another error.
/// - Over the bound is `restore_too_large` before anything is parsed; a snapshot decoded has an
///   origin, finite offsets, at most the field and history limits, every history entry of its
///   origin, and was taken within `maxAge` of now.
/// - Round trip: a decoded snapshot encoded again decodes to the same snapshot.
/// - A report is refused over its bound; one parsed is of a page with an origin.
enum RestoreChecks {
    static let codes: Set<String> = ["restore_corrupt", "restore_too_large", "restore_expired", "restore_foreign_origin"]
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let policy = RestorePolicy(maxBytes: 4096, maxAge: 3600)

    static func check(_ bytes: [UInt8]) throws {
        try snapshot(Data(bytes))
        // The same bytes behind the format tag, so the fuzzer reaches the JSON without guessing it.
        try snapshot(PageState.magic + Data(bytes))
        try report(String(decoding: bytes, as: UTF8.self))
    }

    static func snapshot(_ data: Data) throws {
        let state: PageState
        do {
            state = try PageState.decode(data, policy: policy, now: now)
        } catch let HybridError.restore(failure) {
            try require(codes.contains(failure.code), "unexpected code \(failure.code)")
            if data.count > policy.maxBytes { try require(failure.code == "restore_too_large", "oversized as \(failure.code)") }
            return
        } catch {
            throw FuzzViolation(description: "not a restore error: \(error)")
        }
        try require(data.count <= policy.maxBytes, "an oversized snapshot decoded")
        guard let origin = state.origin else { throw FuzzViolation(description: "a snapshot without origin decoded") }
        try require(state.scrollX.isFinite && state.scrollY.isFinite, "a non-finite offset")
        try require(state.fields.count <= RestorePolicy.maxFields && state.history.count <= RestorePolicy.maxHistory, "over the limits")
        try require(state.history.allSatisfy { BridgeOrigin(url: $0) == origin }, "a history entry of another origin")
        try require(state.taken.addingTimeInterval(policy.maxAge) > now, "an expired snapshot decoded")
        let again = try PageState.decode(state.encoded(policy: RestorePolicy(maxBytes: 1 << 20, maxAge: policy.maxAge)),
                                         policy: RestorePolicy(maxBytes: 1 << 20, maxAge: policy.maxAge), now: now)
        try require(again == state, "the round trip changed the snapshot")
    }

    static func report(_ text: String) throws {
        guard let parsed = PageStateReport.parse(text, maxBytes: 4096) else { return }
        try require(text.utf8.count <= 4096, "an oversized report was parsed")
        try require(BridgeOrigin(url: parsed.url) != nil, "a report of a page without origin")
    }
}
