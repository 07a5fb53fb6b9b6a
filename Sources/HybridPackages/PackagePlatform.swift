import Foundation
import HybridBase

// HybridCore stays Foundation-only, so the primitives packages need are declared here and
// implemented per platform: libsodium + zlib in HybridCrypto on Linux, CryptoKit on Apple.

/// A streaming SHA-256.
public protocol Digest {
    /// Feeds more bytes.
    mutating func update(_ bytes: UnsafeRawBufferPointer)
    /// The 32-byte digest. Call once.
    mutating func finalize() -> Data
}

extension Digest {
    /// Feeds the bytes of `data`.
    public mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }
}

/// Makes fresh ``Digest`` states.
public protocol DigestFactory: Sendable {
    /// A new SHA-256 state.
    func makeSHA256() -> any Digest
}

extension DigestFactory {
    /// The lower-case hex SHA-256 of `data`.
    public func sha256Hex(_ data: Data) -> String {
        var digest = makeSHA256()
        digest.update(data)
        return digest.finalize().lowercaseHex
    }
}

/// Signs messages with an Ed25519 private key.
public protocol Signer: Sendable {
    /// The 32-byte Ed25519 public key that verifies this signer's signatures.
    var publicKey: Data { get }
    /// A 64-byte detached Ed25519 signature of `message`.
    func sign(_ message: Data) throws -> Data
}

/// Verifies detached Ed25519 signatures against one trusted public key, or a set of them
/// with validity windows (``TrustedKeySet``).
public protocol SignatureVerifier: Sendable {
    /// Whether `signature` is a valid signature of `message` by the trusted key.
    func isValidSignature(_ signature: Data, of message: Data) -> Bool
    /// Checks `signature` over `message` (a `what`: "pointer", "manifest", "config") at `now`.
    /// The default checks ``isValidSignature(_:of:)``; a key set refuses keys outside their windows.
    /// - Throws: ``PackageFailure/badSignature(_:)``, or a key-validity failure.
    func verify(_ signature: Data, of message: Data, what: String, at now: Date) throws
}

extension SignatureVerifier {
    /// Checks ``isValidSignature(_:of:)``; a single key has no validity window.
    /// - Throws: ``PackageFailure/badSignature(_:)``.
    public func verify(_ signature: Data, of message: Data, what: String, at now: Date) throws {
        guard isValidSignature(signature, of: message) else { throw HybridError.pkg(.badSignature(what)) }
    }
}

/// A lossless compressor for blobs (zlib, RFC 1950).
public protocol BlobCompressor: Sendable {
    /// The encoding name written into manifests (`"zlib"`).
    var encoding: String { get }
    /// Compressed bytes, or `nil` when compression is unavailable.
    func compress(_ data: Data) -> Data?
    /// The decompressed bytes, which must be exactly `expectedSize` long.
    /// - Throws: ``PackageFailure/corruptBlob(sha256:reason:)`` when they are not.
    func decompress(_ data: Data, expectedSize: Int) throws -> Data
}

/// The platform primitives the package code needs: SHA-256 and, optionally, compression and a
/// delta codec for byte-level patches.
public struct PackagePlatform: Sendable {
    /// SHA-256 states.
    public var digests: any DigestFactory
    /// The compressor, when the platform has one; without it, blobs are stored as they are.
    public var compressor: (any BlobCompressor)?
    /// The delta codec, when the platform has one: `hybrid pack` makes patches with it and the
    /// updater applies them. Without it, packs publish and updaters fetch full blobs only.
    public var delta: (any DeltaCodec)?

    /// A platform with these digests and, optionally, a compressor and a delta codec.
    public init(digests: any DigestFactory, compressor: (any BlobCompressor)?, delta: (any DeltaCodec)? = nil) {
        self.digests = digests
        self.compressor = compressor
        self.delta = delta
    }

    /// Decodes a stored blob to the file's bytes.
    /// - Throws: ``PackageFailure/unsupportedEncoding(_:)`` or a decompression failure.
    public func decode(_ stored: Data, encoding: String, expectedSize: Int) throws -> Data {
        if encoding == PackageFile.identity { return stored }
        guard let compressor, compressor.encoding == encoding else {
            throw HybridError.pkg(.unsupportedEncoding(encoding))
        }
        return try compressor.decompress(stored, expectedSize: expectedSize)
    }
}
