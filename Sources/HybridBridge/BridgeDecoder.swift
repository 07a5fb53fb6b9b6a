import Foundation
import HybridBase

/// Turns message text from the page into a ``BridgeMessage``, or a typed failure. Never traps.
///
/// The size limit is checked on the UTF-8 byte count before any parsing, so an oversized
/// message costs nothing but its length.
public struct BridgeDecoder: Sendable {
    /// The default message size limit: 16 MiB.
    public static let defaultMaxMessageBytes = 16 << 20
    /// Call ids are JavaScript-safe integers.
    static let maxCallID = (1 << 53) - 1

    /// Messages longer than this many UTF-8 bytes fail with `payload_too_large`.
    public var maxMessageBytes: Int
    var table: BridgeActionTable

    /// A decoder with no modules: every call resolves to `unknown_module`.
    public init(maxMessageBytes: Int = BridgeDecoder.defaultMaxMessageBytes) {
        self.init(maxMessageBytes: maxMessageBytes, table: BridgeActionTable())
    }

    /// A decoder that resolves calls against `modules`.
    public init(maxMessageBytes: Int = BridgeDecoder.defaultMaxMessageBytes, modules: [any BridgeModule]) {
        var table = BridgeActionTable()
        for module in modules { table.register(module) }
        self.init(maxMessageBytes: maxMessageBytes, table: table)
    }

    init(maxMessageBytes: Int, table: BridgeActionTable) {
        self.maxMessageBytes = maxMessageBytes
        self.table = table
    }

    /// A failure to decode, with the call id when one could be read from the message's start.
    public struct Failure: Error, Sendable, Equatable {
        /// What was wrong: `payload_too_large` or `malformed`.
        public let failure: BridgeFailure
        /// The id found by ``BridgeDecoder/peekCallID(_:)``, so the page can still be answered.
        public let callID: Int?
    }

    /// Decodes one message.
    /// - Returns: the message, or a ``Failure`` with `payload_too_large` or `malformed`.
    public func decode(_ text: String) -> Result<BridgeMessage, Failure> {
        let size = text.utf8.count
        guard size <= maxMessageBytes else {
            return .failure(Failure(failure: .payloadTooLarge(size: size, limit: maxMessageBytes), callID: Self.peekCallID(text)))
        }
        var text = text
        do {
            let message = try text.withUTF8 { try read($0, size: size) }
            return .success(message)
        } catch let failure as BridgeFailure {
            return .failure(Failure(failure: failure, callID: Self.peekCallID(text)))
        } catch {
            return .failure(Failure(failure: .malformed(String(describing: error)), callID: Self.peekCallID(text)))
        }
    }

    /// Reads the envelope's fields; `params` is validated and decoded into the action's type.
    private func read(_ bytes: UnsafeBufferPointer<UInt8>, size: Int) throws -> BridgeMessage {
        var scanner = BridgeJSONScanner(bytes)
        var kind = "call", version: Int?, id: Int?, module: String?, action: String?, nonce: String?, timeout: Int?
        var params: Range<Int>?
        try scanner.expect(UInt8(ascii: "{"), "an object")
        if !scanner.take(UInt8(ascii: "}")) {
            repeat {
                let key = try scanner.string("key")
                try scanner.expect(UInt8(ascii: ":"), "':'")
                switch key {
                case "t": kind = try scanner.string("t")
                case "v": version = try scanner.integer("v", in: 0...1_000_000)
                case "id": id = try scanner.integer("id", in: 0...Self.maxCallID)
                case "module": module = try scanner.string("module")
                case "action": action = try scanner.string("action")
                case "nonce": nonce = try scanner.takeNull() ? nil : scanner.string("nonce")
                case "timeout": timeout = try scanner.takeNull() ? nil : scanner.integer("timeout", in: 1...Int(Int32.max))
                case "params": params = try scanner.skipValue()
                default: _ = try scanner.skipValue()
                }
            } while scanner.take(UInt8(ascii: ","))
            try scanner.expect(UInt8(ascii: "}"), "',' or '}'")
        }
        guard scanner.peek() == nil else { throw scanner.fail("trailing characters") }
        guard let version else { throw BridgeFailure.malformed("missing v") }
        guard version == 1 else { throw BridgeFailure.malformed("unsupported version \(version)") }
        switch kind {
        case "hello":
            if let nonce, nonce.isEmpty || nonce.utf8.count > 256 {
                throw BridgeFailure.malformed("a hello's nonce must be 1 to 256 bytes")
            }
            return .hello(nonce: nonce)
        case "cancel":
            guard let id else { throw BridgeFailure.malformed("cancel needs an id") }
            return .cancel(id: id, nonce: nonce)
        case "call":
            guard let id else { throw BridgeFailure.malformed("missing id") }
            guard let module, let action else { throw BridgeFailure.malformed("missing module or action") }
            var call = BridgeCall(id: id, module: module, action: action, nonce: nonce, timeoutMilliseconds: timeout,
                                  resolution: resolve(module, action, params.map { UnsafeBufferPointer(rebasing: bytes[$0]) }))
            call.size = size
            return .call(call)
        default:
            throw BridgeFailure.malformed("unknown message type '\(kind)'")
        }
    }

    private func resolve(_ module: String, _ action: String, _ params: UnsafeBufferPointer<UInt8>?) -> BridgeCall.Resolution {
        guard let entry = table.modules[module] else { return .unknownModule }
        guard let handler = entry.actions[action] else { return .unknownAction }
        do {
            let decoded = try Self.withNullIfAbsent(params) { try handler.decodeParams($0) }
            return .ready(handler, params: decoded, allowedOrigins: entry.allowedOrigins)
        } catch {
            return .badParams(BridgeJSON.describe(error), allowedOrigins: entry.allowedOrigins)
        }
    }

    /// A missing `params` decodes as `null`.
    private static func withNullIfAbsent<T>(_ params: UnsafeBufferPointer<UInt8>?, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        if let params { return try body(params) }
        let null: StaticString = "null"
        return try body(UnsafeBufferPointer(start: null.utf8Start, count: null.utf8CodeUnitCount))
    }

    /// Reads the call id from the first bytes of a message without parsing the rest.
    ///
    /// The runtime always writes `{"v":1,"id":N,` first, so a message too large or too broken
    /// to parse can still be answered. Looks at no more than 64 bytes.
    public static func peekCallID(_ text: String) -> Int? {
        let head = Array(text.utf8.prefix(64))
        let marker = Array(#""id":"#.utf8)
        guard head.count > marker.count else { return nil }
        for start in 0...(head.count - marker.count) where head[start..<start + marker.count].elementsEqual(marker) {
            var index = start + marker.count
            while index < head.count, head[index] == UInt8(ascii: " ") { index += 1 }
            var value = 0
            var digits = 0
            while index < head.count, digits < 16, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(head[index]) {
                value = value * 10 + Int(head[index] - UInt8(ascii: "0"))
                digits += 1
                index += 1
            }
            return digits > 0 && value <= maxCallID ? value : nil
        }
        return nil
    }
}
