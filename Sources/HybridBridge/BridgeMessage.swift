import Foundation
import HybridBase

/// A message from the page, decoded and type-checked.
///
/// Wire format (JSON text, version 1):
/// - call: `{"v":1,"id":7,"module":"device","action":"info","params":{…},"nonce":"…","timeout":5000}`
///   (`"t":"call"` is implied; `timeout` in milliseconds is optional);
/// - cancel: `{"t":"cancel","v":1,"id":7,"nonce":"…"}` (the page's AbortSignal fired);
/// - hello: `{"t":"hello","v":1}` (a new document asks for its nonce, which the acknowledgement
///   carries) or `{"t":"hello","v":1,"nonce":"…"}` (a document announces the nonce it made: a
///   transport without replies, whose acknowledgement comes back by evaluation and must be matched).
public enum BridgeMessage: Sendable {
    /// A call to a module's action.
    case call(BridgeCall)
    /// The page aborted call `id` (its AbortSignal fired).
    case cancel(id: Int, nonce: String?)
    /// A new document asks for a nonce (`nil`: the router issues one) or announces the nonce its
    /// calls will carry.
    case hello(nonce: String?)
}

/// A decoded call envelope. Its params are already decoded into the action's own type.
public struct BridgeCall: Sendable {
    /// The page's call id (echoed in the reply).
    public let id: Int
    /// The module named by the call.
    public let module: String
    /// The action named by the call.
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
    /// Modules that answer exactly the origins some other module answers (the `hybrid` module):
    /// a page the app gave nothing gets nothing, not even the list of what it lacks.
    private var followers: Set<String> = []

    mutating func register(_ module: any BridgeModule) {
        var actions: [String: BridgeAction] = [:]
        for action in module.actions { actions[action.name] = action }
        if module is HybridInfoModule { followers.insert(module.name) } else { followers.remove(module.name) }
        modules[module.name] = Entry(allowedOrigins: module.allowedOrigins, actions: actions)
        let others = modules.filter { !followers.contains($0.key) }.values.flatMap(\.allowedOrigins)
        for name in followers {
            if let entry = modules[name] { modules[name] = Entry(allowedOrigins: others, actions: entry.actions) }
        }
    }
}
