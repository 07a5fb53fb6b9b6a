import HybridBase
import HybridPackages

extension PackagePlatform {
    /// This platform's primitives: libsodium's SHA-256 on Linux, CryptoKit's on Apple, zlib
    /// wherever `libz` can be loaded (without it, blobs are stored uncompressed), and the zstd
    /// delta codec where libzstd is linked (Linux; elsewhere `delta` is `nil` and updates fetch
    /// full blobs unless the app sets its own ``DeltaCodec``).
    public static var native: PackagePlatform {
        #if canImport(CSodium)
        PackagePlatform(digests: SodiumDigests(), compressor: ZlibCompressor.available, delta: nativeDelta)
        #else
        PackagePlatform(digests: CryptoKitDigests(), compressor: ZlibCompressor.available, delta: nativeDelta)
        #endif
    }

    private static var nativeDelta: (any DeltaCodec)? {
        #if canImport(CZstd)
        ZstdDeltaCodec()
        #else
        nil
        #endif
    }
}
