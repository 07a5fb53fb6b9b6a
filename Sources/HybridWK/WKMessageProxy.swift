#if canImport(WebKit)
import Foundation
import HybridCore
import WebKit

/// The script message handlers of one view: `WKScriptMessageHandlerWithReply` for handlers that
/// answer (the page's `postMessage` returns a Promise) and `WKScriptMessageHandler` for
/// fire-and-forget ones. Registered per name and content world.
///
/// The content controller retains it; it holds the engine weakly and answers nothing once the
/// engine is gone (a page's Promise is then rejected, never left pending).
@MainActor
final class WKMessageProxy: NSObject, WKScriptMessageHandlerWithReply, WKScriptMessageHandler {
    weak var engine: WKWebEngine?
    private let handlers: [String: ScriptMessageHandler]

    init(handlers: [ScriptMessageHandler]) {
        var byKey: [String: ScriptMessageHandler] = [:]
        for handler in handlers { byKey[Self.key(handler.name, world: handler.world.name)] = handler }
        self.handlers = byKey
        super.init()
    }

    /// Names are unique per world, not per view (two worlds may use the same name).
    private static func key(_ name: String, world: String?) -> String { "\(world ?? "")\u{0}\(name)" }

    private func handler(for message: WKScriptMessage) -> ScriptMessageHandler? {
        guard let engine, engine.isAlive else { return nil }
        return handlers[Self.key(message.name, world: message.world.name)]
    }

    func userContentController(
        _ userContentController: WKUserContentController, didReceive message: WKScriptMessage,
        replyHandler: @escaping @MainActor @Sendable (Any?, String?) -> Void
    ) {
        guard let handler = handler(for: message), case .reply(let answerer) = handler.kind else {
            replyHandler(nil, "no handler for \(message.name)")
            return
        }
        let scriptMessage = ScriptMessage(name: message.name, body: WKScriptValue.messageBody(message.body))
        switch answerer(scriptMessage) {
        case .now(let reply):
            Self.send(reply, to: replyHandler)
        case .later(let work):
            ImmediateTask.start { Self.send(await work(), to: replyHandler) }
        }
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
        guard let handler = handler(for: message), case .noReply(let receiver) = handler.kind else { return }
        receiver(ScriptMessage(name: message.name, body: WKScriptValue.messageBody(message.body)))
    }
}
#endif
