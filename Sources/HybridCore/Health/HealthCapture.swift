import Foundation

/// The page side of health recording and the container's one script-error capture:
/// `hybrid-health.js`, run at document start in every frame in the container's own script world
/// (the bridge's: a world of its own would cost every document another world), and the handler it
/// posts to in that world. Its errors feed both health recording and boot health's trial
/// (``HybridWebView/pageCaptured(_:)``), so a package page pays for one script, not two.
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
    static let source = ScriptResource.source("hybrid-health")

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

    /// The message in `text`, or `nil` for anything malformed, oversized, of an unknown kind, or
    /// with a field of the wrong type. Read with `JSONSerialization`, not a `Decodable`: the timing
    /// message lands right after a page's load, on the open's critical path, where the decoding
    /// code is cold: 65–140 µs with a `JSONDecoder` against 30–70 µs (measured in an optimised
    /// build, one decode after 300 ms idle; 90 µs of a pooled open's 110 µs of native handling).
    static func parse(_ text: String) -> Message? {
        guard text.utf8.count <= maxMessageBytes,
              let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let wire = Wire(object) else { return nil }
        switch wire.string("kind") {
        case "timing":
            guard let timing = wire.timing() else { return nil }
            return .timing(timing, page: wire.string("page"))
        case "error":
            guard let message = wire.string("message"), wire.valid(strings: ["type", "source", "stack", "origin"], integers: ["line", "column"])
            else { return nil }
            let type = wire.string("type") == "rejection" ? "rejection" : "error"
            return .error(ScriptErrorReport(type: type, message: message, source: nonEmpty(wire.string("source")),
                                            line: positive(wire.integer("line")), column: positive(wire.integer("column")),
                                            stack: nonEmpty(wire.string("stack")), origin: nonEmpty(wire.string("origin"))))
        case "dropped":
            guard let count = wire.integer("count"), count > 0 else { return nil }
            return .dropped(count)
        default:
            return nil
        }
    }

    /// A posted object's fields, typed: a field that is present (not null) with the wrong type
    /// makes the message malformed.
    private struct Wire {
        let object: [String: Any]

        init?(_ object: [String: Any]) {
            guard object["kind"] is String else { return nil }
            self.object = object
        }

        func present(_ key: String) -> Any? {
            guard let value = object[key], !(value is NSNull) else { return nil }
            return value
        }
        func string(_ key: String) -> String? { present(key) as? String }
        func number(_ key: String) -> Double? {
            switch present(key) {
            case let value as Int: Double(value)
            case let value as Double: value
            case let value as NSNumber: value.doubleValue
            default: nil
            }
        }
        func integer(_ key: String) -> Int? {
            guard let value = number(key), value == value.rounded(), abs(value) < 1e15 else { return nil }
            return Int(value)
        }
        func valid(strings: [String] = [], numbers: [String] = [], integers: [String] = []) -> Bool {
            strings.allSatisfy { present($0) == nil || string($0) != nil }
                && numbers.allSatisfy { present($0) == nil || number($0) != nil }
                && integers.allSatisfy { present($0) == nil || integer($0) != nil }
        }
        func timing() -> PageTiming? {
            let fields = ["responseStart", "domContentLoaded", "load", "firstPaint", "firstContentfulPaint"]
            guard valid(strings: ["page"], numbers: fields + ["timeOrigin"]) else { return nil }
            return PageTiming(responseStart: number("responseStart"), domContentLoaded: number("domContentLoaded"),
                              load: number("load"), firstPaint: number("firstPaint"),
                              firstContentfulPaint: number("firstContentfulPaint"))
        }
    }

    private static func nonEmpty(_ text: String?) -> String? { text?.isEmpty == false ? text : nil }
    private static func positive(_ number: Int?) -> Int? { number.flatMap { $0 > 0 ? $0 : nil } }
}
