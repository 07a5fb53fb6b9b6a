#if !canImport(CSodium) && canImport(CryptoKit)
import CryptoKit
import Foundation
import HybridBase
import HybridPackages

// Apple platforms: the same public types as the libsodium backend, on CryptoKit. The bytes are
// identical: a seed, public key or signature made by one verifies with the other.

/// Streaming SHA-256 on CryptoKit.
public struct CryptoKitSHA256: HybridCore.Digest {
    private var hasher = SHA256()

    /// A fresh SHA-256 state.
    public init() {}

    /// Feeds `bytes` into the hash.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: bytes)
    }

    /// The 32-byte digest of everything fed in.
    public mutating func finalize() -> Data {
        Data(hasher.finalize())
    }
}

/// Makes ``CryptoKitSHA256`` states.
public struct CryptoKitDigests: DigestFactory {
    /// A factory; it holds no state.
    public init() {}
    /// A fresh ``CryptoKitSHA256`` state.
    public func makeSHA256() -> any HybridCore.Digest { CryptoKitSHA256() }
}

/// Ed25519 signing with CryptoKit's `Curve25519.Signing`.
public struct Ed25519Signer: Signer {
    /// The 32-byte seed (`Curve25519.Signing.PrivateKey.rawRepresentation`).
    public let seed: Data
    /// The 32-byte public key that verifies this signer's signatures.
    public let publicKey: Data
    private let key: Curve25519.Signing.PrivateKey

    /// - Throws: ``PackageFailure/invalidKey(_:)`` when the seed is not 32 bytes.
    public init(seed: Data) throws {
        guard seed.count == 32, let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else {
            throw HybridError.package(.invalidKey("an Ed25519 seed is 32 bytes, got \(seed.count)"))
        }
        self.seed = seed
        self.key = key
        self.publicKey = key.publicKey.rawRepresentation
    }

    /// A signer with a fresh random seed.
    public static func generate() throws -> Ed25519Signer {
        try Ed25519Signer(seed: Curve25519.Signing.PrivateKey().rawRepresentation)
    }

    /// The 64-byte Ed25519 signature of `message`.
    public func sign(_ message: Data) throws -> Data {
        try key.signature(for: message)
    }
}

/// Verifies Ed25519 signatures with CryptoKit.
public struct Ed25519Verifier: SignatureVerifier {
    /// The 32-byte trusted public key.
    public let publicKey: Data
    private let key: Curve25519.Signing.PublicKey

    /// - Throws: ``PackageFailure/invalidKey(_:)`` when the key is not 32 bytes.
    public init(publicKey: Data) throws {
        guard publicKey.count == 32, let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else {
            throw HybridError.package(.invalidKey("an Ed25519 public key is 32 bytes, got \(publicKey.count)"))
        }
        self.publicKey = publicKey
        self.key = key
    }

    /// Whether `signature` is this key's Ed25519 signature of `message`.
    public func isValidSignature(_ signature: Data, of message: Data) -> Bool {
        key.isValidSignature(signature, for: message)
    }
}
#endif
