import Foundation
import HybridBase

/// One action of a ``BridgeModule``: a name, typed params, a typed result and an async handler.
///
/// ```swift
/// BridgeAction("info") { (_: BridgeEmpty, ctx) in DeviceInfo.current }
/// BridgeAction("echo") { (text: String, ctx) in text }
/// ```
/// The params are decoded with `Codable` straight from the message (one parse); a mismatch
/// reaches the page as `bad_params`. The result is encoded with `JSONEncoder`.
public struct BridgeAction: Sendable {
    /// The action's name, as the page passes it to `hybrid.call(module, action)`.
    public let name: String
    /// Decodes params from their JSON bytes (already checked to be one well-formed value).
    let decodeParams: @Sendable (UnsafeBufferPointer<UInt8>) throws -> any Sendable
    let invoke: nonisolated(nonsending) @Sendable (any Sendable, BridgeCallContext) async throws -> String
    /// Set for actions declared with ``immediate(_:_:)``: runs the call to its end, synchronously.
    let invokeNow: (@MainActor @Sendable (any Sendable, BridgeCallContext) throws -> String)?

    /// Declares an action.
    /// - Parameters:
    ///   - name: The action's name.
    ///   - handler: Runs the call. It starts on the main actor, like the engine's own callbacks, so
    ///     quick handlers cost no thread hop; move heavy work off it (an actor, a detached task).
    ///     It may `await ctx.progress(…)`, should honour Swift task cancellation (the page
    ///     aborted, timed out, or navigated away), and throws ``BridgeFailure`` for errors the
    ///     page should see with their own code.
    public init<Params: Decodable & Sendable, Result: Encodable & Sendable>(
        _ name: String, _ handler: nonisolated(nonsending) @escaping @Sendable (Params, BridgeCallContext) async throws -> Result
    ) {
        self.name = name
        decodeParams = Self.decoder(for: Params.self)
        invoke = { params, context in
            let result = try await handler(try Self.typed(params, context), context)
            return try context.encode(result)
        }
        invokeNow = nil
    }

    private init(_ name: String, decodeParams: @escaping @Sendable (UnsafeBufferPointer<UInt8>) throws -> any Sendable,
                 invokeNow: @escaping @MainActor @Sendable (any Sendable, BridgeCallContext) throws -> String) {
        self.name = name
        self.decodeParams = decodeParams
        self.invokeNow = invokeNow
        invoke = { params, context in try await MainActor.run { try invokeNow(params, context) } }
    }

    private init(_ name: String, decodeParams: @escaping @Sendable (UnsafeBufferPointer<UInt8>) throws -> any Sendable,
                 invoke: nonisolated(nonsending) @escaping @Sendable (any Sendable, BridgeCallContext) async throws -> String) {
        self.name = name
        self.decodeParams = decodeParams
        self.invoke = invoke
        invokeNow = nil
    }

    /// This action run only once `gate` returns: a call waits for it (and fails with what it
    /// throws) before its handler starts. An immediate action becomes an ordinary one. A
    /// prerendered page's effectful calls wait for its activation this way.
    package func deferred(until gate: @escaping @Sendable () async throws -> Void) -> BridgeAction {
        let invoke = self.invoke
        return BridgeAction(name, decodeParams: decodeParams) { params, context in
            try await gate()
            return try await invoke(params, context)
        }
    }

    /// Declares an action whose handler answers at once: it runs on the main actor inside the
    /// engine's message callback, with no task made for the call, so a call costs little more
    /// than the engine's own round trip. Use it for quick answers (state the app holds); it
    /// cannot report progress or be cancelled, since it never suspends.
    public static func immediate<Params: Decodable & Sendable, Result: Encodable & Sendable>(
        _ name: String, _ handler: @escaping @MainActor @Sendable (Params, BridgeCallContext) throws -> Result
    ) -> BridgeAction {
        BridgeAction(name, decodeParams: decoder(for: Params.self)) { params, context in
            try context.encode(try handler(try typed(params, context), context))
        }
    }

    private static func decoder<Params: Decodable & Sendable>(for type: Params.Type)
        -> @Sendable (UnsafeBufferPointer<UInt8>) throws -> any Sendable
    {
        { bytes in
            if Params.self == BridgeEmpty.self { return BridgeEmpty() }
            if Params.self == String.self || Params.self == JSONValue.self {
                var scanner = BridgeJSONScanner(bytes)
                let value: any Sendable = Params.self == String.self ? try scanner.string("params") : try scanner.jsonValue()
                guard scanner.peek() == nil else { throw BridgeFailure.malformed("params: trailing characters") }
                // Raw JSON sees posted bytes as `$bytes`, as it did before the byte channel (the tree
                // is rebuilt only when the text names a token).
                if BridgeByteStore.bound != nil, let json = value as? JSONValue, Self.mentionsToken(bytes) {
                    return try json.inliningChannelBytes()
                }
                return value
            }
            let decoder = JSONDecoder()
            decoder.dataDecodingStrategy = .custom(BridgeBytes.decodeData)
            return try decoder.decode(Params.self, from: Data(bytes))
        }
    }

    /// Whether JSON text contains the key `"$blob"` (a token the byte channel carried).
    static func mentionsToken(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let key = Array(#""$blob""#.utf8)
        guard bytes.count >= key.count else { return false }
        var index = 0
        while index <= bytes.count - key.count {
            if bytes[index] == key[0] {
                var matched = 1
                while matched < key.count && bytes[index + matched] == key[matched] { matched += 1 }
                if matched == key.count { return true }
            }
            index += 1
        }
        return false
    }

    private static func typed<Params>(_ params: any Sendable, _ context: BridgeCallContext) throws -> Params {
        guard let params = params as? Params else {
            throw BridgeFailure.internalError("params of \(context.module).\(context.action) lost their type")
        }
        return params
    }
}

/// Params for actions that take none, and a result for actions that return nothing (`null`).
///
/// Decodes from anything (`{}`, `null`, a missing `params`), so pages may pass what they like.
public struct BridgeEmpty: Codable, Sendable, Hashable {
    /// The empty value.
    public init() {}
    /// Decodes from anything at all, ignoring it.
    public init(from decoder: any Decoder) throws {}
    /// Encodes `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}
