import Foundation
import HybridBase

/// The signed "latest version" pointer a repository keeps per package (`latest.json`).
///
/// It binds the latest version number to its manifest's path and SHA-256, so a client learns
/// about a new version from one tiny file and cannot be handed a different manifest.
public struct PackagePointer: Codable, Sendable, Equatable {
    /// The format it was written in (``PackageManifest/currentFormat``).
    public var format: Int
    /// The package id.
    public var id: String
    /// The latest version.
    public var version: Int
    /// The manifest's path relative to the repository root.
    public var manifest: String
    /// SHA-256 (hex) of the manifest's bytes.
    public var manifestSHA256: String
    /// When the version was packed.
    public var created: Date
    /// The manifest's size in bytes, when a compressed copy is published beside it.
    public var manifestSize: Int?
    /// The compressor's encoding (`zlib`) of the copy at ``PackageRepositoryLayout/compressedManifest(id:version:encoding:)``,
    /// which clients with that compressor fetch instead (it is checked against ``manifestSHA256`` once inflated).
    public var manifestEncoding: String?
    /// How many key rotations (``KeyRotation``) the signing key is past the roots; a client whose
    /// ``TrustedKeySet`` is behind fetches `keys/rotation-N.json` up to it before verifying this
    /// pointer. Read before the signature is checked, it only decides what to fetch.
    public var keySequence: Int?

    /// A pointer to version `version` of package `id`, whose manifest is at `manifest`, with
    /// optionally a compressed copy in `manifestEncoding` of the `manifestSize`-byte manifest.
    public init(id: String, version: Int, manifest: String, manifestSHA256: String, created: Date,
                manifestSize: Int? = nil, manifestEncoding: String? = nil, keySequence: Int? = nil) {
        self.format = PackageManifest.currentFormat
        self.id = id
        self.version = version
        self.manifest = manifest
        self.manifestSHA256 = manifestSHA256
        self.created = created
        self.manifestSize = manifestSize
        self.manifestEncoding = manifestEncoding
        self.keySequence = keySequence
    }

    /// The JSON bytes a publisher signs.
    public func encoded() throws -> Data { try PackageDates.encoder.encode(self) }

    /// Decodes pointer bytes (after their signature verified) and checks they name `id`.
    /// - Throws: ``PackageFailure/invalidManifest(_:)``.
    public static func decode(_ data: Data, expectedID: String? = nil) throws -> PackagePointer {
        let pointer: PackagePointer
        do {
            pointer = try PackageDates.decoder.decode(PackagePointer.self, from: data)
        } catch {
            throw HybridError.pkg(.invalidManifest("pointer: \(error)"))
        }
        guard pointer.format == PackageManifest.currentFormat, PackageManifest.isValidID(pointer.id), pointer.version >= 1,
              PackageDates.isSHA256Hex(pointer.manifestSHA256),
              pointer.manifest == PackageRepositoryLayout.manifest(id: pointer.id, version: pointer.version),
              (pointer.manifestSize ?? 0) >= 0, pointer.manifestEncoding.map(PackageManifest.isValidID) ?? true else {
            throw HybridError.pkg(.invalidManifest("pointer is malformed"))
        }
        if let expectedID, pointer.id != expectedID {
            throw HybridError.pkg(.invalidManifest("pointer names '\(pointer.id)', expected '\(expectedID)'"))
        }
        return pointer
    }
}

/// Detached signatures as files: base64 text of the 64 signature bytes, one line.
public enum DetachedSignature {
    /// The file bytes for a signature.
    public static func fileData(_ signature: Data) -> Data {
        Data((signature.base64EncodedString() + "\n").utf8)
    }

    /// Checks `fileData` (a `.sig` file's bytes, or `nil` when it is missing) against `message`,
    /// with the keys valid at `now`.
    /// - Throws: ``PackageFailure/missingSignature(_:)``, ``PackageFailure/badSignature(_:)``, or a
    ///   key-validity failure of a ``TrustedKeySet`` (`key_expired`, `key_revoked`, `key_not_yet_valid`).
    public static func verify(_ fileData: Data?, of message: Data, what: String, with verifier: any SignatureVerifier,
                              at now: Date = Date()) throws {
        guard let fileData, !fileData.isEmpty else { throw HybridError.pkg(.missingSignature(what)) }
        let text = String(decoding: fileData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let signature = Data(base64Encoded: text), signature.count == 64 else {
            throw HybridError.pkg(.badSignature(what))
        }
        try verifier.verify(signature, of: message, what: what, at: now)
    }
}

/// Where things live in a static package repository (any web server or CDN can serve it):
///
/// ```
/// REPO/index.json                               {"packages": ["app", …]} (discovery, unsigned)
/// REPO/packages/ID/latest.json(.sig)            signed pointer to the latest version
/// REPO/packages/ID/VERSION/manifest.json(.sig)  signed manifest of each version
/// REPO/packages/ID/VERSION/manifest.json.zlib  the same manifest compressed (what clients fetch; unsigned copy)
/// REPO/blobs/AB/ABCDEF…                         content-addressed blobs and patches, named by SHA-256 of their stored bytes
/// ```
public enum PackageRepositoryLayout {
    /// The discovery index's path (`index.json`).
    public static let index = "index.json"
    /// What a signature file adds to the signed file's name (`.sig`).
    public static let signatureSuffix = ".sig"

    /// The path of package `id`'s pointer (`packages/ID/latest.json`).
    public static func pointer(id: String) -> String { "packages/\(id)/latest.json" }
    /// The path of a version's manifest (`packages/ID/VERSION/manifest.json`).
    public static func manifest(id: String, version: Int) -> String { "packages/\(id)/\(version)/manifest.json" }
    /// The path of a manifest's compressed copy (`packages/ID/VERSION/manifest.json.zlib`).
    public static func compressedManifest(id: String, version: Int, encoding: String) -> String {
        manifest(id: id, version: version) + "." + encoding
    }
    /// The path of the blob named `sha256` (`blobs/AB/ABCDEF…`): a file's stored bytes, or a patch.
    public static func blob(_ sha256: String) -> String { "blobs/\(sha256.prefix(2))/\(sha256)" }

    /// The discovery index's shape.
    public struct Index: Codable, Sendable {
        /// The ids of the repository's packages, sorted.
        public var packages: [String]
        /// An index of `packages`.
        public init(packages: [String]) { self.packages = packages }
    }
}
