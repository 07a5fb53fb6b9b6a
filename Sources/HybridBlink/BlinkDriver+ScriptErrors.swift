#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Foundation
import HybridCore

/// The page's uncaught errors and unhandled rejections, from DevTools: Chromium dispatches a
/// page's `ErrorEvent` and `unhandledrejection` only in the world that caused them, so the
/// container's health script (in its own world) never hears them here, unlike on WebKit.
extension BlinkDriver {
    /// Remembers each context's origin (every frame's page world, the main frame's and iframes'),
    /// so an exception is attributed to the frame that threw it, not to the page; the container's
    /// own isolated worlds are marked so that their exceptions are never reported as the page's.
    func noteContextOrigin(_ context: JSONValue) {
        guard let id = context.int("id") else { return }
        contextOrigins[id] = context["auxData"]?.flag("isDefault") == true ? context.string("origin") ?? "" : Self.isolatedContext
    }

    /// The ``contextOrigins`` mark of an isolated world's context.
    static let isolatedContext = "#isolated"

    /// `Runtime.exceptionThrown`: one uncaught exception (`Uncaught`) or unhandled rejection
    /// (`Uncaught (in promise)`), translated into ``ScriptErrorReport`` as WebKit's `ErrorEvent`
    /// would describe it: the first line of the description as the message, 1-based line and column.
    func exceptionThrown(_ params: JSONValue) {
        guard let details = params["exceptionDetails"] else { return }
        let exception = details["exception"]
        let description = exception?.string("description")
        let message = description?.split(separator: "\n", maxSplits: 1).first.map(String.init)
            ?? exception?["value"].map { $0.stringValue ?? $0.jsonText }
            ?? details.string("text") ?? "Script error"
        let frame = details["stackTrace"]?["callFrames"]?.arrayValue?.first
        let source = [details.string("url"), frame?.string("url")].compactMap { $0 }.first { !$0.isEmpty }
        let origin = details.int("executionContextId").flatMap { contextOrigins[$0] }
        guard origin != Self.isolatedContext else { return }
        let isRejection = details.string("text")?.contains("(in promise)") == true
        host?.scriptErrorThrown(ScriptErrorReport(
            type: isRejection ? "rejection" : "error", message: message, source: source,
            line: details.int("lineNumber").map { $0 + 1 }, column: details.int("columnNumber").map { $0 + 1 },
            stack: (description?.contains("\n") == true) ? description : nil,
            origin: origin.flatMap { $0.isEmpty || $0 == "null" ? nil : $0 }))
    }
}
#endif
