import HybridCore

extension PackagePlatform {
    /// This platform's primitives: libsodium's SHA-256 on Linux, CryptoKit's on Apple, and
    /// zlib wherever `libz` can be loaded (without it, blobs are stored uncompressed).
    public static var native: PackagePlatform {
        #if canImport(CSodium)
        PackagePlatform(digests: SodiumDigests(), compressor: ZlibCompressor.available)
        #else
        PackagePlatform(digests: CryptoKitDigests(), compressor: ZlibCompressor.available)
        #endif
    }
}
