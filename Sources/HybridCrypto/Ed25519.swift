#if canImport(CSodium)
import CSodium
import HybridBase
import HybridPackages
import Foundation

/// Ed25519 signing with libsodium. Signatures are the 64-byte RFC 8032 form, which CryptoKit's
/// `Curve25519.Signing.PublicKey.isValidSignature(_:for:)` accepts.
public struct Ed25519Signer: Signer {
    /// The 32-byte seed: CryptoKit's `Curve25519.Signing.PrivateKey.rawRepresentation`.
    public let seed: Data
    /// The 32-byte public key that verifies this signer's signatures.
    public let publicKey: Data
    /// libsodium's 64-byte secret key (seed ‖ public key), derived from the seed.
    private let secretKey: [UInt8]

    /// A signer for a 32-byte seed.
    /// - Throws: ``PackageFailure/invalidKey(_:)`` when the seed is not 32 bytes.
    public init(seed: Data) throws {
        guard seed.count == Int(crypto_sign_SEEDBYTES) else {
            throw HybridError.package(.invalidKey("an Ed25519 seed is 32 bytes, got \(seed.count)"))
        }
        Sodium.ready()
        var pk = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
        var sk = [UInt8](repeating: 0, count: Int(crypto_sign_SECRETKEYBYTES))
        let seedBytes = [UInt8](seed)
        guard crypto_sign_seed_keypair(&pk, &sk, seedBytes) == 0 else {
            throw HybridError.package(.invalidKey("libsodium refused the seed"))
        }
        self.seed = seed
        self.publicKey = Data(pk)
        self.secretKey = sk
    }

    /// A signer with a fresh random seed.
    public static func generate() throws -> Ed25519Signer {
        Sodium.ready()
        var seed = [UInt8](repeating: 0, count: Int(crypto_sign_SEEDBYTES))
        randombytes_buf(&seed, seed.count)
        return try Ed25519Signer(seed: Data(seed))
    }

    /// The 64-byte detached Ed25519 signature of `message` (`crypto_sign_detached`).
    /// - Throws: ``PackageFailure/internalError(_:)`` if libsodium fails.
    public func sign(_ message: Data) throws -> Data {
        var signature = [UInt8](repeating: 0, count: Int(crypto_sign_BYTES))
        let bytes = [UInt8](message)
        guard crypto_sign_detached(&signature, nil, bytes, UInt64(bytes.count), secretKey) == 0 else {
            throw HybridError.package(.internalError("crypto_sign_detached failed"))
        }
        return Data(signature)
    }
}

/// Verifies Ed25519 signatures against one trusted 32-byte public key with libsodium.
public struct Ed25519Verifier: SignatureVerifier {
    /// The 32-byte trusted public key.
    public let publicKey: Data

    /// - Throws: ``PackageFailure/invalidKey(_:)`` when the key is not 32 bytes.
    public init(publicKey: Data) throws {
        guard publicKey.count == Int(crypto_sign_PUBLICKEYBYTES) else {
            throw HybridError.package(.invalidKey("an Ed25519 public key is 32 bytes, got \(publicKey.count)"))
        }
        Sodium.ready()
        self.publicKey = publicKey
    }

    /// Whether `signature` is a 64-byte Ed25519 signature of `message` by this key
    /// (`crypto_sign_verify_detached`).
    public func isValidSignature(_ signature: Data, of message: Data) -> Bool {
        guard signature.count == Int(crypto_sign_BYTES) else { return false }
        let sig = [UInt8](signature), bytes = [UInt8](message), key = [UInt8](publicKey)
        return crypto_sign_verify_detached(sig, bytes, UInt64(bytes.count), key) == 0
    }
}
#endif
