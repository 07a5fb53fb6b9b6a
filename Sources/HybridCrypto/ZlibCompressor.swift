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

    private struct Library: @unchecked Sendable {
        let compress2: Compress2
        let uncompress: Uncompress
        let compressBound: CompressBound
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
                  let b = dlsym(handle, "compressBound") else { continue }
            return Library(compress2: unsafeBitCast(c, to: Compress2.self),
                           uncompress: unsafeBitCast(u, to: Uncompress.self),
                           compressBound: unsafeBitCast(b, to: CompressBound.self))
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
