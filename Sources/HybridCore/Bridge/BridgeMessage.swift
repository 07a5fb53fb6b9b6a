import Foundation

/// A message from the page, decoded and type-checked.
///
/// Wire format (JSON text, version 1):
/// - call: `{"v":1,"id":7,"module":"device","action":"info","params":{…},"nonce":"…","timeout":5000}`
///   (`"t":"call"` is implied; `timeout` in milliseconds is optional);
/// - cancel: `{"t":"cancel","v":1,"id":7,"nonce":"…"}` (the page's AbortSignal fired);
/// - hello: `{"t":"hello","v":1,"nonce":"…"}` (a new document announces its nonce).
public enum BridgeMessage: Sendable {
    case call(BridgeCall)
    case cancel(id: Int, nonce: String?)
    case hello(nonce: String)
}

/// A decoded call envelope. Its params are already decoded into the action's own type.
public struct BridgeCall: Sendable {
    /// The page's call id (echoed in the reply).
    public let id: Int
    public let module: String
    public let action: String
    /// The document nonce the page stamped on the call.
    public let nonce: String?
    /// The page's timeout for this call, in milliseconds.
    public let timeoutMilliseconds: Int?
    /// The wire size of the message, in UTF-8 bytes.
    public internal(set) var size: Int = 0
    let resolution: Resolution

    /// What the decoder found for `module`/`action`/`params`, checked in that order.
    enum Resolution: Sendable {
        case ready(BridgeAction, params: any Sendable, allowedOrigins: [OriginPattern])
        case unknownModule
        case unknownAction
        case badParams(String, allowedOrigins: [OriginPattern])
    }
}

/// The modules a decoder resolves calls against: an immutable snapshot of a router's registry.
struct BridgeActionTable: Sendable {
    struct Entry: Sendable {
        let allowedOrigins: [OriginPattern]
        let actions: [String: BridgeAction]
    }

    var modules: [String: Entry] = [:]

    mutating func register(_ module: any BridgeModule) {
        var actions: [String: BridgeAction] = [:]
        for action in module.actions { actions[action.name] = action }
        modules[module.name] = Entry(allowedOrigins: module.allowedOrigins, actions: actions)
    }

    static let userInfoKey = CodingUserInfoKey(rawValue: "hybridkit.bridge.actions")!
}

/// The top-level object as decoded; `init(from:)` resolves the action while the parser is
/// still on the message, so params are decoded exactly once, into their own type.
struct BridgeFrame: Decodable {
    let message: BridgeMessage

    private enum Key: String, CodingKey { case t, v, id, module, action, params, nonce, timeout }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let kind = try container.decodeIfPresent(String.self, forKey: .t) ?? "call"
        let version = try container.decode(Int.self, forKey: .v)
        guard version == 1 else { throw BridgeFailure.malformed("unsupported version \(version)") }
        let nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        switch kind {
        case "hello":
            guard let nonce, !nonce.isEmpty, nonce.utf8.count <= 256 else {
                throw BridgeFailure.malformed("hello needs a nonce of 1 to 256 bytes")
            }
            message = .hello(nonce: nonce)
        case "cancel":
            message = .cancel(id: try Self.callID(container), nonce: nonce)
        case "call":
            let id = try Self.callID(container)
            let module = try container.decode(String.self, forKey: .module)
            let action = try container.decode(String.self, forKey: .action)
            let timeout = try container.decodeIfPresent(Int.self, forKey: .timeout)
            if let timeout, timeout <= 0 { throw BridgeFailure.malformed("timeout must be positive") }
            let table = decoder.userInfo[BridgeActionTable.userInfoKey] as? BridgeActionTable
            let resolution: BridgeCall.Resolution
            if let entry = table?.modules[module] {
                if let handler = entry.actions[action] {
                    do {
                        let params = try handler.decodeParams(try container.superDecoder(forKey: .params))
                        resolution = .ready(handler, params: params, allowedOrigins: entry.allowedOrigins)
                    } catch {
                        resolution = .badParams(BridgeJSON.describe(error), allowedOrigins: entry.allowedOrigins)
                    }
                } else {
                    resolution = .unknownAction
                }
            } else {
                resolution = .unknownModule
            }
            message = .call(BridgeCall(id: id, module: module, action: action, nonce: nonce,
                                       timeoutMilliseconds: timeout, resolution: resolution))
        default:
            throw BridgeFailure.malformed("unknown message type '\(kind)'")
        }
    }

    private static func callID(_ container: KeyedDecodingContainer<Key>) throws -> Int {
        let id = try container.decode(Int.self, forKey: .id)
        guard id >= 0, id <= BridgeDecoder.maxCallID else { throw BridgeFailure.malformed("id out of range") }
        return id
    }
}
