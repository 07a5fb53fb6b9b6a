import Foundation
import HybridBase
import HybridEngine

/// How messages travel between the page runtime and the router. Chosen from the engine's
/// capabilities; the page API is the same over all of them.
public enum BridgeTransport: String, Sendable, CaseIterable {
    /// Reply handler in an isolated world (WebKit ≥ 2.40 / WKContentWorld): the default.
    case isolatedReply = "isolated-reply"
    /// Handler without reply in an isolated world; answers are evaluated back by id.
    case isolatedCallback = "isolated-callback"
    /// Reply handler in the page's world, guarded by a nonce issued to the top frame only.
    case pageReply = "page-reply"
    /// Handler without reply in the page's world, nonce-guarded; answers evaluated back.
    case pageCallback = "page-callback"
    /// The legacy transport: a queue fetched when a hidden iframe navigates to `hybrid://__queue__`.
    case url

    /// The best transport `capabilities` allow.
    public static func best(for capabilities: EngineCapabilities) -> BridgeTransport {
        switch (capabilities.contains(.scriptWorlds), capabilities.contains(.messageReplies)) {
        case (true, true): .isolatedReply
        case (true, false): .isolatedCallback
        case (false, true): .pageReply
        case (false, false): .pageCallback
        }
    }

    /// The world the transport script and the message handler live in.
    public func world(named name: String) -> ScriptWorld {
        switch self {
        case .isolatedReply, .isolatedCallback: .named(name)
        case .pageReply, .pageCallback, .url: .page
        }
    }

    /// The handler answers with a Promise.
    public var usesReplies: Bool { self == .isolatedReply || self == .pageReply }

    /// The router issues the document nonce (no isolated world keeps frames away from the handler).
    public var issuesNonce: Bool { self == .pageReply || self == .pageCallback }
}

/// A call written as a URL: `hybrid://module/action?params=<JSON>` or `?key=value&…`
/// (string params), the form links and older pages use.
public struct BridgeURLCall: Sendable, Equatable {
    /// The URL's host.
    public let module: String
    /// The URL's first path component.
    public let action: String
    /// `params=<JSON>`, or the query items as an object of strings.
    public let params: JSONValue

    /// Parses `url` if its scheme is `scheme`; `nil` otherwise or when it names no module/action.
    public init?(_ url: URL, scheme: String) {
        guard url.scheme?.lowercased() == scheme.lowercased(),
              let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let module = components.host, !module.isEmpty
        else { return nil }
        let action = components.path.split(separator: "/").first.map(String.init) ?? ""
        guard !action.isEmpty else { return nil }
        self.module = module
        self.action = action
        let items = components.queryItems ?? []
        if let json = items.first(where: { $0.name == "params" })?.value {
            guard let params = try? JSONValue(jsonText: json) else { return nil }
            self.params = params
        } else {
            var object: [String: JSONValue] = [:]
            for item in items { object[item.name] = .string(item.value ?? "") }
            self.params = .object(object)
        }
    }

    /// The envelope for this call, as the router expects it (no nonce: the host vouches for it).
    func envelope(id: Int) -> String {
        let message: JSONValue = ["v": 1, "id": .number(Double(id)), "module": .string(module),
                                  "action": .string(action), "params": params]
        return message.jsonText
    }

    /// The reserved host the legacy transport's queue signal navigates to.
    public static let queueHost = "__queue__"
}
