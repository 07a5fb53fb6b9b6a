import Foundation
import HybridBase

/// Message text native sends to the page: replies, progress and events (JSON, version 1).
///
/// - reply: `{"t":"reply","id":7,"ok":true,"value":…}` or
///   `{"t":"reply","id":7,"ok":false,"error":{"code":"denied","message":"…","data":…}}`
/// - progress: `{"t":"progress","id":7,"value":…}`
/// - event: `{"t":"event","name":"…","payload":…}`
/// - hello acknowledgement: `{"t":"hello","ok":true,"value":{…}}`
///
/// Values are spliced in as already-encoded JSON text, so a large result is encoded once.
public enum BridgeWire {
    /// A successful reply carrying `valueJSON` (JSON text).
    public static func success(id: Int?, valueJSON: String) -> String {
        var text = #"{"t":"reply","id":"# + idText(id) + #","ok":true,"value":"#
        text.reserveCapacity(text.utf8.count + valueJSON.utf8.count + 1)
        text += valueJSON
        text += "}"
        return text
    }

    /// A failed reply.
    public static func failure(id: Int?, _ failure: BridgeFailure) -> String {
        #"{"t":"reply","id":"# + idText(id) + #","ok":false,"error":"# + errorJSON(failure) + "}"
    }

    /// A progress report for call `id`.
    public static func progress(id: Int, valueJSON: String) -> String {
        #"{"t":"progress","id":"# + String(id) + #","value":"# + valueJSON + "}"
    }

    /// An event for `hybrid.on(name, …)` listeners.
    public static func event(name: String, payloadJSON: String) -> String {
        #"{"t":"event","name":"# + BridgeJSON.quote(name) + #","payload":"# + payloadJSON + "}"
    }

    /// The answer to a hello: the document's nonce (issued, or the one it announced) and what the
    /// runtime exposes as `hybrid.version` / `hybrid.capabilities`.
    public static func helloAck(_ info: JSONValue, nonce: String) -> String {
        #"{"t":"hello","ok":true,"nonce":"# + BridgeJSON.quote(nonce) + #","value":"# + info.jsonText + "}"
    }

    /// `{"code":…,"message":…,"data":…}` for a failure.
    public static func errorJSON(_ failure: BridgeFailure) -> String {
        var text = #"{"code":"# + BridgeJSON.quote(failure.code) + #","message":"# + BridgeJSON.quote(failure.description)
        if let data = failure.data, let json = try? BridgeJSON.write(data) { text += #","data":"# + json }
        return text + "}"
    }

    private static func idText(_ id: Int?) -> String { id.map(String.init) ?? "null" }
}

/// One line for the app's log: a refused call, a dropped reply, a failure worth knowing about.
public struct BridgeLogEntry: Sendable, Equatable, CustomStringConvertible {
    /// How much a log line matters.
    public enum Level: String, Sendable { case info, warning }
    /// `warning` for refusals, `info` for routine drops.
    public let level: Level
    /// The failure code (`denied`, `payload_too_large`, …) or an event name (`document`).
    public let code: String
    /// What happened, for people.
    public let message: String
    /// The caller's origin, when known.
    public let origin: BridgeOrigin?
    /// The module and action concerned, when known.
    public let module: String?
    /// The action concerned, when known.
    public let action: String?

    /// A log line.
    public init(level: Level, code: String, message: String, origin: BridgeOrigin? = nil,
                module: String? = nil, action: String? = nil) {
        self.level = level
        self.code = code
        self.message = message
        self.origin = origin
        self.module = module
        self.action = action
    }

    /// `[bridge] LEVEL CODE MODULE.ACTION from ORIGIN: MESSAGE`, leaving out what is unknown.
    public var description: String {
        var text = "[bridge] \(level.rawValue) \(code)"
        if let module { text += " \(module).\(action ?? "?")" }
        if let origin { text += " from \(origin)" }
        return text + ": \(message)"
    }
}

/// How a call ended, for observers (tests, metrics). Reported exactly once per accepted call.
public struct BridgeCompletion: Sendable, Equatable {
    /// The page's id for the call.
    public let callID: Int
    /// The module and action called.
    public let module: String
    /// The action called.
    public let action: String
    /// `nil` on success, else the failure code.
    public let code: String?
    /// `false` when the reply was dropped because its document went away.
    public let delivered: Bool
}
