import Foundation
import HybridBase

/// Binary data crossing the bridge.
///
/// On the wire it is `{"$bytes":"<base64>"}`; the page runtime turns `ArrayBuffer`, typed arrays
/// and `DataView`s in params into that form and turns it back into a `Uint8Array` in results,
/// so page code passes and receives bytes directly. Where the engine has a byte channel
/// (``BridgeByteChannel``), a large value travels as `{"$blob":"<token>","size":N}` instead: its
/// bytes cross as a request or response body, and the token names them in the view's
/// ``BridgeByteStore``; this type reads and writes both forms, so a module sees no difference:
/// ```js
/// const png = await hybrid.call('camera', 'snapshot');          // Uint8Array
/// await hybrid.call('files', 'write', { name: 'a.bin', bytes: new Uint8Array([1, 2]) });
/// ```
public struct BridgeBytes: Codable, Sendable, Hashable {
    /// The bytes.
    public var data: Data

    /// Wraps `data`.
    public init(_ data: Data) { self.data = data }

    private enum Key: String, CodingKey { case bytes = "$bytes", blob = "$blob", size }

    /// Decodes `{"$bytes":"<base64>"}`, or `{"$blob":"<token>","size":N}` by taking the token's
    /// bytes out of the view's byte store (once).
    /// - Throws: `DecodingError` when the object has no `$bytes` string or it is not base64, or
    ///   when a `$blob` token names no bytes of that size in this view's store.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if let token = try container.decodeIfPresent(String.self, forKey: .blob) {
            let size = try container.decode(Int.self, forKey: .size)
            do {
                data = try Self.takeFromChannel(token, size: size)
            } catch BridgeFailure.malformed(let why) {
                throw DecodingError.dataCorruptedError(forKey: .blob, in: container, debugDescription: why)
            }
            return
        }
        let text = try container.decode(String.self, forKey: .bytes)
        guard let data = Data(base64Encoded: text) else {
            throw DecodingError.dataCorruptedError(forKey: .bytes, in: container, debugDescription: "not base64")
        }
        self.data = data
    }

    /// Encodes `{"$bytes":"<base64>"}`, or `{"$blob":"<token>","size":N}` for a large value in a
    /// reply, progress or event of a view with a byte channel.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        if let token = Self.channelToken(for: data) {
            try container.encode(token, forKey: .blob)
            try container.encode(data.count, forKey: .size)
            return
        }
        try container.encode(data.base64EncodedString(), forKey: .bytes)
    }

    /// The JSON text directly (base64 and tokens need no escaping).
    var jsonText: String { Self.outboundText(data) }

    /// `Data` in params: a base64 string (`JSONDecoder`'s default), or a bytes object as above.
    @Sendable package static func decodeData(_ decoder: any Decoder) throws -> Data {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not base64"))
            }
            return data
        }
        return try BridgeBytes(from: decoder).data
    }
}
