import Foundation
import HybridBase
import HybridBridge

/// What `hybrid-restore.js` posts (or returns to ``HybridWebView/snapshotState()``): the page's
/// state as the page sees it, before the view adds its history and the time.
struct PageStateReport: Equatable {
    /// What the report says about the page.
    enum Content: Equatable {
        /// The page's state.
        case state(sessionStorage: [String: String], scrollX: Double, scrollY: Double, fields: [PageState.Field])
        /// `<meta name="hybrid-restore" content="none">`: keep nothing.
        case optedOut
        /// More state than the script sends: keep nothing.
        case tooLarge
    }

    /// The page the report is of.
    var url: URL
    /// What it reports.
    var content: Content

    /// The handler the script posts to, in the bridge's world.
    static let handlerName = "hybridkitRestore"
    /// `hybrid-restore.js` as shipped.
    static let source = ScriptResource.source("hybrid-restore", in: .module)

    private struct Wire: Decodable {
        var kind: String
        var url: String
        var optOut, tooLarge: Bool?
        var sessionStorage: [String: String]?
        var scrollX, scrollY: Double?
        var fields: [PageState.Field]?
    }

    /// The report in `text`, or `nil` for anything malformed, over `maxBytes`, or of a page
    /// without an origin (a pool's placeholder document, `about:blank`).
    static func parse(_ text: String, maxBytes: Int) -> PageStateReport? {
        guard text.utf8.count <= maxBytes,
              let wire = try? JSONDecoder().decode(Wire.self, from: Data(text.utf8)), wire.kind == "state",
              let url = URL(string: wire.url), BridgeOrigin(url: url) != nil else { return nil }
        if wire.optOut == true { return PageStateReport(url: url, content: .optedOut) }
        if wire.tooLarge == true { return PageStateReport(url: url, content: .tooLarge) }
        let fields = wire.fields ?? []
        let scrollX = wire.scrollX ?? 0, scrollY = wire.scrollY ?? 0
        guard fields.count <= RestorePolicy.maxFields, scrollX.isFinite, scrollY.isFinite else { return nil }
        return PageStateReport(url: url, content: .state(sessionStorage: wire.sessionStorage ?? [:], scrollX: scrollX,
                                                         scrollY: scrollY, fields: fields))
    }

    /// The state to keep: the report with the same-origin entries of `history` before the page
    /// (the most recent ``RestorePolicy/maxHistory``), taken `now`; `nil` when the page keeps none.
    func state(history: [URL], now: Date) -> PageState? {
        guard case .state(let storage, let scrollX, let scrollY, let fields) = content, let origin = BridgeOrigin(url: url) else { return nil }
        let sameOrigin = history.filter { BridgeOrigin(url: $0) == origin }.suffix(RestorePolicy.maxHistory)
        return PageState(url: url, history: Array(sameOrigin), sessionStorage: storage, scrollX: scrollX, scrollY: scrollY,
                         fields: fields, taken: now)
    }
}
