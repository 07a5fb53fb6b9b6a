import Foundation
import HybridBase
import HybridPackages
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// zlib (RFC 1950) compression of blobs, calling the system `libz` found at run time.
///
/// Why `dlopen` rather than a module: zlib's one-shot `compress2`/`uncompress`/`compressBound`
/// have had the same C signatures since 1.0, so four function pointers are all we need, and the
/// package graph stays as it is (no extra system-library target). When `libz` cannot be loaded,
/// ``available`` is `nil` and packs store blobs uncompressed.
public struct ZlibCompressor: BlobCompressor {
    private typealias Compress2 = @convention(c) (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt>?, UnsafePointer<UInt8>?, UInt, Int32) -> Int32
    private typealias Uncompress = @convention(c) (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt>?, UnsafePointer<UInt8>?, UInt) -> Int32
    private typealias CompressBound = @convention(c) (UInt) -> UInt
    private typealias CRC32 = @convention(c) (UInt, UnsafePointer<UInt8>?, UInt32) -> UInt

    private struct Library: @unchecked Sendable {
        let compress2: Compress2
        let uncompress: Uncompress
        let compressBound: CompressBound
        let crc32: CRC32
    }

    private static let library: Library? = {
        #if os(Linux)
        let names = ["libz.so.1", "libz.so"]
        #else
        let names = ["/usr/lib/libz.1.dylib", "libz.dylib"]
        #endif
        for name in names {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else { continue }
            guard let c = dlsym(handle, "compress2"), let u = dlsym(handle, "uncompress"),
                  let b = dlsym(handle, "compressBound"), let crc = dlsym(handle, "crc32") else { continue }
            return Library(compress2: unsafeBitCast(c, to: Compress2.self),
                           uncompress: unsafeBitCast(u, to: Uncompress.self),
                           compressBound: unsafeBitCast(b, to: CompressBound.self),
                           crc32: unsafeBitCast(crc, to: CRC32.self))
        }
        return nil
    }()

    /// A compressor when `libz` is present, else `nil`.
    public static var available: ZlibCompressor? { library == nil ? nil : ZlibCompressor() }

    /// `zlib`: the ``PackageFile/encoding`` of blobs this compressor stores.
    public let encoding = "zlib"
    /// zlib's level, 1 (fast) … 9 (small).
    public var level: Int32 = 9

    private init() {}

    /// `data` in zlib format at ``level``, or `nil` when compression fails.
    public func compress(_ data: Data) -> Data? {
        guard let lib = Self.library else { return nil }
        let source = [UInt8](data)
        var capacity = lib.compressBound(UInt(source.count))
        var out = [UInt8](repeating: 0, count: Int(capacity))
        let status = lib.compress2(&out, &capacity, source, UInt(source.count), level)
        guard status == 0 else { return nil }
        return Data(out.prefix(Int(capacity)))
    }

    /// `data` as gzip (RFC 1952: header, the zlib stream's raw deflate, CRC-32 and size), what
    /// `Content-Encoding: gzip` carries (``OTLPExporter/Options/gzip``); `nil` when `libz` is missing.
    public static func gzip(_ data: Data) -> Data? {
        var compressor = ZlibCompressor()
        compressor.level = 6   // zlib's default: telemetry is compressed on the device, often
        guard let lib = library, data.count < Int(UInt32.max), var zlib = compressor.compress(data), zlib.count >= 6 else { return nil }
        // A zlib stream is a 2-byte header, raw deflate, and a 4-byte Adler-32: keep the deflate.
        zlib = zlib.subdata(in: 2..<(zlib.count - 4))
        let crc = data.withUnsafeBytes { UInt32(truncatingIfNeeded: lib.crc32(0, $0.bindMemory(to: UInt8.self).baseAddress, UInt32(data.count))) }
        var out = Data([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])
        out.append(zlib)
        for value in [crc, UInt32(truncatingIfNeeded: data.count)] {
            withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
        }
        return out
    }

    /// Inflates a zlib blob to exactly `expectedSize` bytes.
    /// - Throws: ``PackageFailure/corruptBlob(sha256:reason:)`` when it does not inflate to that size,
    ///   ``PackageFailure/unsupportedEncoding(_:)`` when `libz` is missing.
    public func decompress(_ data: Data, expectedSize: Int) throws -> Data {
        guard let lib = Self.library else { throw HybridError.package(.unsupportedEncoding(encoding)) }
        let source = [UInt8](data)
        // The signed manifest gives the exact size, which also caps what a hostile blob can inflate to.
        var length = UInt(expectedSize)
        var out = [UInt8](repeating: 0, count: max(expectedSize, 1))
        let status = lib.uncompress(&out, &length, source, UInt(source.count))
        guard status == 0, length == UInt(expectedSize) else {
            throw HybridError.package(.corruptBlob(sha256: "", reason: "zlib stream does not inflate to \(expectedSize) bytes (status \(status))"))
        }
        return Data(out.prefix(expectedSize))
    }
}
