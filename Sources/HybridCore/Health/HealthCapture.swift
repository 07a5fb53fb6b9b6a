import Foundation
import HybridBridge
import HybridBase
import HybridEngine
import HybridHealth

/// The page side of health recording and the container's one script-error capture:
/// `hybrid-health.js`, run at document start in every frame in the container's own script world
/// (the bridge's: a world of its own would cost every document another world), and the handler it
/// posts to in that world. Its errors feed both health recording and boot health's trial
/// (``PageCaptureFeature``), so a package page pays for one script, not two.
///
/// Measured (docs/health.md): on WebKit (WebKitGTK, WKWebView) the world hears the page's `error`
/// and `unhandledrejection` events and its paint entries, whatever the page overrides; on Blink it
/// hears the paint entries only, and the driver reports the page's errors from DevTools instead
/// (``EngineDriverHost/scriptErrorThrown(_:)``).
enum HealthCapture {
    /// The handler the script posts to, in the script's world.
    static let handlerName = "hybridkitHealth"
    /// The largest message taken; the script bounds what it sends far below this.
    static let maxMessageBytes = 32_768

    /// `hybrid-health.js` as shipped.
    static let source = ScriptResource.source("hybrid-health", in: .module)

    /// The script, in every frame at document start, in `world` (the page cannot see its globals
    /// or post to its handler); without `timing` (boot health alone wants the errors) it leaves the
    /// page's timing out.
    static func script(in world: ScriptWorld, timing: Bool = true) -> UserScript {
        UserScript(source: timing ? source : "window.__hybridkitHealthErrorsOnly = true;\n" + source,
                   injectionTime: .documentStart, frames: .allFrames, world: world)
    }

    /// What the script posted.
    enum Message: Equatable {
        /// The top-level document's timing (milliseconds from navigation start), and its URL: a
        /// document that is going away may report after the next launch began.
        case timing(PageTiming, page: String?)
        /// An uncaught error or unhandled rejection in the frame that posted it.
        case error(ScriptErrorReport)
        /// Errors the frame folded away (repeats, or beyond its limit).
        case dropped(Int)
    }

    private struct Wire: Decodable {
        var kind: String
        var responseStart, domContentLoaded, load, firstPaint, firstContentfulPaint: Double?
        var type, message, source, stack, origin, page: String?
        var line, column, count: Int?
    }

    /// The message in `text`, or `nil` for anything malformed, oversized or of an unknown kind.
    static func parse(_ text: String) -> Message? {
        guard text.utf8.count <= maxMessageBytes,
              let wire = try? JSONDecoder().decode(Wire.self, from: Data(text.utf8)) else { return nil }
        switch wire.kind {
        case "timing":
            return .timing(PageTiming(responseStart: wire.responseStart, domContentLoaded: wire.domContentLoaded,
                                      load: wire.load, firstPaint: wire.firstPaint,
                                      firstContentfulPaint: wire.firstContentfulPaint), page: wire.page)
        case "error":
            guard let message = wire.message else { return nil }
            let type = wire.type == "rejection" ? "rejection" : "error"
            return .error(ScriptErrorReport(type: type, message: message, source: nonEmpty(wire.source),
                                            line: positive(wire.line), column: positive(wire.column),
                                            stack: nonEmpty(wire.stack), origin: nonEmpty(wire.origin)))
        case "dropped":
            guard let count = wire.count, count > 0 else { return nil }
            return .dropped(count)
        default:
            return nil
        }
    }

    private static func nonEmpty(_ text: String?) -> String? { text?.isEmpty == false ? text : nil }
    private static func positive(_ number: Int?) -> Int? { number.flatMap { $0 > 0 ? $0 : nil } }
}
