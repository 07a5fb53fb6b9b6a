import Foundation
import HybridBase
import HybridPackages

/// Ed25519 keys on disk, in a form CryptoKit reads directly.
///
/// `hybrid keygen --out KEYDIR` writes two text files, each one line of standard base64:
/// - `KEYDIR/private`: the 32-byte seed (mode 0600). On Apple:
///   `Curve25519.Signing.PrivateKey(rawRepresentation: Data(base64Encoded: text)!)`.
/// - `KEYDIR/public`: the 32-byte public key. On Apple:
///   `Curve25519.Signing.PublicKey(rawRepresentation: Data(base64Encoded: text)!)`.
///
/// Signatures (`*.sig`) are base64 of the 64-byte RFC 8032 signature, which both libsodium's
/// `crypto_sign_verify_detached` and CryptoKit's `isValidSignature(_:for:)` check.
public enum Ed25519KeyFiles {
    /// The private key file's name in a key directory (`private`).
    public static let privateName = "private"
    /// The public key file's name in a key directory (`public`).
    public static let publicName = "public"

    /// Generates a key pair into `directory` (created if needed). Refuses to overwrite a key.
    /// - Returns: the signer for the new key.
    /// - Throws: ``PackageFailure/invalidKey(_:)`` when a key already exists, or a write failure.
    @discardableResult
    public static func generate(into directory: URL) throws -> Ed25519Signer {
        let fm = FileManager.default
        let privateURL = directory.appendingPathComponent(privateName)
        let publicURL = directory.appendingPathComponent(publicName)
        guard !fm.fileExists(atPath: privateURL.path), !fm.fileExists(atPath: publicURL.path) else {
            throw HybridError.package(.invalidKey("\(directory.path) already holds a key; refusing to overwrite it"))
        }
        do {
            try fm.createDirectory(at: directory, withIntermediateDirectories: true)
            let signer = try Ed25519Signer.generate()
            // Create the private file 0600 before writing the secret, so it is never readable by others.
            guard fm.createFile(atPath: privateURL.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw HybridError.package(.writeFailed(path: privateURL.path, message: "cannot create"))
            }
            try Data((signer.seed.base64EncodedString() + "\n").utf8).write(to: privateURL)
            try Data((signer.publicKey.base64EncodedString() + "\n").utf8).write(to: publicURL)
            return signer
        } catch let error as HybridError {
            throw error
        } catch {
            throw HybridError.package(.writeFailed(path: directory.path, message: error.localizedDescription))
        }
    }

    /// Reads a signer from a private key file (or a key directory holding `private`).
    /// - Throws: ``PackageFailure/invalidKey(_:)``.
    public static func signer(at url: URL) throws -> Ed25519Signer {
        let file = resolve(url, name: privateName)
        // A public key is 32 bytes of base64 too: without these checks, `--key KEYDIR/public`
        // would sign with a key nobody trusts, and clients would refuse everything.
        guard file.lastPathComponent != publicName else {
            throw HybridError.package(.invalidKey("\(file.path) is the public key; signing needs \(privateName)"))
        }
        let signer = try Ed25519Signer(seed: readKey(at: file))
        let sibling = file.deletingLastPathComponent().appendingPathComponent(publicName)
        if FileManager.default.fileExists(atPath: sibling.path), try readKey(at: sibling) != signer.publicKey {
            throw HybridError.package(.invalidKey("\(file.path) does not match \(sibling.path)"))
        }
        return signer
    }

    /// Reads a verifier from a public key file (or a key directory holding `public`).
    /// - Throws: ``PackageFailure/invalidKey(_:)``.
    public static func verifier(at url: URL) throws -> Ed25519Verifier {
        try Ed25519Verifier(publicKey: readKey(at: resolve(url, name: publicName)))
    }

    /// Decodes one key file's text: base64 of exactly 32 bytes.
    public static func decodeKey(_ text: String) throws -> Data {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let data = Data(base64Encoded: trimmed), data.count == 32 else {
            throw HybridError.package(.invalidKey("expected one line of base64 encoding 32 bytes"))
        }
        return data
    }

    private static func resolve(_ url: URL, name: String) -> URL {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return url.appendingPathComponent(name)
        }
        return url
    }

    private static func readKey(at url: URL) throws -> Data {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw HybridError.package(.invalidKey("cannot read \(url.path)"))
        }
        do {
            return try decodeKey(String(decoding: data, as: UTF8.self))
        } catch {
            throw HybridError.package(.invalidKey("\(url.path): expected one line of base64 encoding 32 bytes"))
        }
    }
}

extension TrustedKeySet {
    /// A key set of Ed25519 root keys, verified with libsodium (Linux) or CryptoKit (Apple).
    /// - Parameters:
    ///   - roots: the keys the app ships with, each with its validity window.
    ///   - revoked: public keys refused whatever any rotation says.
    ///   - stateURL: where applied rotations are saved (e.g. `STORE/state/keys.json`); `nil`: memory only.
    public static func ed25519(roots: [TrustedKey], revoked: [Data] = [], stateURL: URL? = nil) -> TrustedKeySet {
        TrustedKeySet(roots: roots, revoked: revoked, stateURL: stateURL) { try Ed25519Verifier(publicKey: $0) }
    }
}
