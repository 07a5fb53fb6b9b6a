import Foundation

/// Binary data crossing the bridge.
///
/// On the wire it is `{"$bytes":"<base64>"}`; the page runtime turns `ArrayBuffer`, typed arrays
/// and `DataView`s in params into that form and turns it back into a `Uint8Array` in results,
/// so page code passes and receives bytes directly:
/// ```js
/// const png = await hybrid.call('camera', 'snapshot');          // Uint8Array
/// await hybrid.call('files', 'write', { name: 'a.bin', bytes: new Uint8Array([1, 2]) });
/// ```
public struct BridgeBytes: Codable, Sendable, Hashable {
    /// The bytes.
    public var data: Data

    /// Wraps `data`.
    public init(_ data: Data) { self.data = data }

    private enum Key: String, CodingKey { case bytes = "$bytes" }

    /// Decodes `{"$bytes":"<base64>"}`.
    /// - Throws: `DecodingError` when the object has no `$bytes` string or it is not base64.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let text = try container.decode(String.self, forKey: .bytes)
        guard let data = Data(base64Encoded: text) else {
            throw DecodingError.dataCorruptedError(forKey: .bytes, in: container, debugDescription: "not base64")
        }
        self.data = data
    }

    /// Encodes `{"$bytes":"<base64>"}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(data.base64EncodedString(), forKey: .bytes)
    }

    /// `{"$bytes":"…"}` directly (base64 needs no escaping).
    var jsonText: String { #"{"$bytes":""# + data.base64EncodedString() + #""}"# }
}
