import Foundation

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
    var table: BridgeActionTable {
        didSet { parser = Parser(table) }
    }
    /// One configured `JSONDecoder` per table: making one per message costs more than parsing
    /// a small message.
    private var parser: Parser

    private final class Parser: Sendable {
        let decoder: JSONDecoder
        init(_ table: BridgeActionTable) {
            decoder = JSONDecoder()
            decoder.userInfo[BridgeActionTable.userInfoKey] = table
        }
    }

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
        parser = Parser(table)
    }

    /// A failure to decode, with the call id when one could be read from the message's start.
    public struct Failure: Error, Sendable, Equatable {
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
        do {
            var message = try parser.decoder.decode(BridgeFrame.self, from: Data(text.utf8)).message
            if case .call(var call) = message {
                call.size = size
                message = .call(call)
            }
            return .success(message)
        } catch let failure as BridgeFailure {
            return .failure(Failure(failure: failure, callID: Self.peekCallID(text)))
        } catch {
            let why = error is DecodingError ? BridgeJSON.describe(error, root: "message") : "not JSON"
            return .failure(Failure(failure: .malformed(why), callID: Self.peekCallID(text)))
        }
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
