#if canImport(CSoup)
import CSoup
import Foundation

/// `Content-Encoding: gzip` for static files, on GLib's zlib converter. Compressed bodies are
/// cached by entity tag (bounded), so a busy server compresses each file version once.
final class GzipEncoding: @unchecked Sendable {
    /// Bodies smaller than this are sent as they are: gzip's framing would outweigh the saving.
    static let minimumSize = 256

    private let lock = NSLock()
    private var cache: [String: Data] = [:]
    private var order: [String] = []
    private let capacity: Int

    init(capacity: Int = 128) { self.capacity = capacity }

    /// Whether a client sending `acceptEncoding` takes gzip (`gzip`, `x-gzip` or `*`, q > 0).
    static func accepts(_ acceptEncoding: String?) -> Bool {
        guard let acceptEncoding else { return false }
        for item in acceptEncoding.lowercased().split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let coding = parts.first, ["gzip", "x-gzip", "*"].contains(coding) else { continue }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if quality > 0 { return true }
        }
        return false
    }

    /// Whether `contentType` is worth compressing (text, JSON, JavaScript, SVG, XML, wasm).
    static func compressible(_ contentType: String) -> Bool {
        let type = contentType.lowercased()
        return type.hasPrefix("text/") || type.contains("json") || type.contains("javascript") || type.contains("xml")
            || type.hasPrefix("image/svg") || type == "application/wasm"
    }

    /// The gzip encoding of `data`, cached under `key`; `nil` if compression fails.
    func encode(_ data: Data, key: String) -> Data? {
        if let hit = lock.withLock({ cache[key] }) { return hit }
        guard let encoded = Self.gzip(data) else { return nil }
        lock.withLock {
            if cache.updateValue(encoded, forKey: key) == nil { order.append(key) }
            while order.count > capacity { cache.removeValue(forKey: order.removeFirst()) }
        }
        return encoded
    }

    /// One-shot gzip through a `GZlibCompressor`.
    static func gzip(_ data: Data) -> Data? {
        guard let compressor = g_zlib_compressor_new(G_ZLIB_COMPRESSOR_FORMAT_GZIP, -1) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(compressor)) }
        let converter = compressor // GZlibCompressor* is a GConverter*; both are opaque here
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: max(64 * 1024, data.count / 2))
        let finished = data.withUnsafeBytes { input -> Bool in
            var offset = 0
            while true {
                var read: gsize = 0
                var written: gsize = 0
                var error: UnsafeMutablePointer<GError>?
                let result = buffer.withUnsafeMutableBytes { out in
                    g_converter_convert(converter, input.baseAddress.map { $0 + offset }, gsize(input.count - offset),
                                        out.baseAddress, gsize(out.count), G_CONVERTER_INPUT_AT_END, &read, &written, &error)
                }
                if error != nil {
                    g_clear_error(&error)
                    return false
                }
                offset += Int(read)
                output.append(contentsOf: buffer[0..<Int(written)])
                if result == G_CONVERTER_FINISHED { return true }
            }
        }
        return finished ? output : nil
    }
}
#endif
