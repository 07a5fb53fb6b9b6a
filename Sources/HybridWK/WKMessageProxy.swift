#if canImport(WebKit)
import Foundation
import HybridCore
import WebKit

/// The script message handlers of one view: `WKScriptMessageHandlerWithReply` for handlers that
/// answer (the page's `postMessage` returns a Promise) and `WKScriptMessageHandler` for
/// fire-and-forget ones. Registered per name and content world.
///
/// The content controller retains it; it holds the driver weakly and hands each message to the
/// host with its reply handler (a page's Promise is rejected, never left pending, once the view is gone).
@MainActor
final class WKMessageProxy: NSObject, WKScriptMessageHandlerWithReply, WKScriptMessageHandler {
    weak var driver: WKDriver?
    /// Each handler's index in the configuration, by world and name.
    private let handlers: [String: Int]

    init(handlers: [ScriptMessageHandler]) {
        var byKey: [String: Int] = [:]
        for (index, handler) in handlers.enumerated() { byKey[Self.key(handler.name, world: handler.world.name)] = index }
        self.handlers = byKey
        super.init()
    }

    /// Names are unique per world, not per view (two worlds may use the same name).
    private static func key(_ name: String, world: String?) -> String { "\(world ?? "")\u{0}\(name)" }

    private func handler(for message: WKScriptMessage) -> Int? {
        handlers[Self.key(message.name, world: message.world.name)]
    }

    func userContentController(
        _ userContentController: WKUserContentController, didReceive message: WKScriptMessage,
        replyHandler: @escaping @MainActor @Sendable (Any?, String?) -> Void
    ) {
        guard let host = driver?.host, let index = handler(for: message) else {
            replyHandler(nil, "no handler for \(message.name)")
            return
        }
        let scriptMessage = ScriptMessage(name: message.name, body: WKScriptValue.messageBody(message.body))
        host.messagePosted(scriptMessage, toHandlerAt: index) { reply in Self.send(reply, to: replyHandler) }
    }

    private static func send(_ reply: ScriptReply, to replyHandler: @MainActor @Sendable (Any?, String?) -> Void) {
        switch reply {
        case .string(let text):
            replyHandler(text, nil)
        case .json(let text):
            if let object = WKScriptValue.foundationObject(jsonText: text) {
                replyHandler(object, nil)
            } else {
                replyHandler(nil, "reply is not valid JSON")
            }
        case .error(let message):
            replyHandler(nil, message)
        }
    }

    func userContentController(_ userContentController: WKUserContentController, didReceive message: WKScriptMessage) {
        guard let host = driver?.host, let index = handler(for: message) else { return }
        host.messagePosted(ScriptMessage(name: message.name, body: WKScriptValue.messageBody(message.body)), toHandlerAt: index, reply: nil)
    }
}
#endif
