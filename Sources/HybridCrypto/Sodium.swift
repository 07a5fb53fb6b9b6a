#if canImport(CSodium)
import CSodium
import HybridBase
import HybridPackages
import Foundation

/// libsodium, initialised once per process (`sodium_init` is idempotent but not free).
enum Sodium {
    private static let initialised: Bool = sodium_init() >= 0

    /// Traps when libsodium cannot initialise: without it nothing here is safe to call.
    static func ready() {
        precondition(initialised, "libsodium failed to initialise")
    }
}

/// Streaming SHA-256 on libsodium's `crypto_hash_sha256`.
public struct SodiumSHA256: Digest {
    private var state = crypto_hash_sha256_state()

    /// A fresh SHA-256 state (initialising libsodium if needed).
    public init() {
        Sodium.ready()
        crypto_hash_sha256_init(&state)
    }

    /// Feeds `bytes` into the hash.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        crypto_hash_sha256_update(&state, base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    /// The 32-byte digest of everything fed in.
    public mutating func finalize() -> Data {
        var out = Data(count: Int(crypto_hash_sha256_BYTES))
        out.withUnsafeMutableBytes { buffer in
            _ = crypto_hash_sha256_final(&state, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return out
    }
}

/// Makes ``SodiumSHA256`` states.
public struct SodiumDigests: DigestFactory {
    /// A factory; it holds no state.
    public init() {}
    /// A fresh ``SodiumSHA256`` state.
    public func makeSHA256() -> any Digest { SodiumSHA256() }
}

#endif
