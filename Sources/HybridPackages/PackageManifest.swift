import Foundation
import HybridBase
import HybridHealth

/// What one version of an offline package holds: signed by the publisher, checked by the client.
///
/// The manifest's exact bytes are signed (Ed25519, detached `manifest.json.sig`), so clients
/// verify bytes before decoding and never depend on a canonical JSON form.
public struct PackageManifest: Codable, Sendable, Equatable {
    /// The manifest format this code writes and reads.
    public static let currentFormat = 1

    /// The manifest format it was written in (``currentFormat``; other formats are refused).
    public var format: Int
    /// The package id: `[A-Za-z0-9._-]`, 1–128 characters (it names directories).
    public var id: String
    /// Monotonically increasing; clients refuse anything below the highest they have seen.
    public var version: Int
    /// The origin and path prefix the package serves, e.g. `https://m.example.com/app/`.
    public var origin: String
    /// The entry document, e.g. `index.html`; also the SPA fallback.
    public var entry: PackagePath
    /// When `true`, a navigation to a path the package lacks is answered with the entry.
    public var spaFallback: Bool
    /// An extra Content-Security-Policy sent beside the default; it can only tighten it.
    public var contentSecurityPolicy: String?
    /// When the publisher packed this version.
    public var created: Date
    /// After this instant clients refuse to install the manifest.
    public var expires: Date
    /// Every file, sorted by path.
    public var files: [PackageFile]

    /// A manifest; `files` are sorted by path here, as the format requires.
    public init(id: String, version: Int, origin: String, entry: PackagePath, spaFallback: Bool = false,
                contentSecurityPolicy: String? = nil, created: Date, expires: Date, files: [PackageFile]) {
        self.format = Self.currentFormat
        self.id = id
        self.version = version
        self.origin = origin
        self.entry = entry
        self.spaFallback = spaFallback
        self.contentSecurityPolicy = contentSecurityPolicy
        self.created = created
        self.expires = expires
        self.files = files.sorted { $0.path < $1.path }
    }

    /// The file at `path`, if the package has it.
    public func file(at path: PackagePath) -> PackageFile? {
        // Files are sorted by path: binary search keeps per-request lookups cheap.
        var low = 0, high = files.count
        while low < high {
            let mid = (low + high) / 2
            if files[mid].path < path { low = mid + 1 } else { high = mid }
        }
        return low < files.count && files[low].path == path ? files[low] : nil
    }

    /// The origin as a URL (validated by ``validate()``).
    public var originURL: URL? { URL(string: origin) }

    /// Checks everything a signature cannot: id syntax, origin, entry, unique paths, digests, dates.
    /// - Throws: ``PackageFailure/invalidManifest(_:)`` or ``PackageFailure/pathCollision(_:_:)``.
    public func validate() throws {
        func bad(_ message: String) -> HybridError { .pkg(.invalidManifest(message)) }
        guard format == Self.currentFormat else { throw bad("unknown format \(format)") }
        guard Self.isValidID(id) else { throw bad("id '\(id)' must be 1–128 of [A-Za-z0-9._-]") }
        guard version >= 1 else { throw bad("version must be at least 1") }
        guard let url = URLComponents(string: origin), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              url.host?.isEmpty == false, url.path.hasSuffix("/"), url.query == nil, url.fragment == nil, url.user == nil else {
            throw bad("origin '\(origin)' must be an http(s) URL ending in '/'")
        }
        guard expires > created else { throw bad("expires before it was created") }
        var seen: [String: PackagePath] = [:]
        for (index, file) in files.enumerated() {
            if index > 0, !(files[index - 1].path < file.path) { throw bad("files not sorted or duplicated at \(file.path)") }
            if let other = seen[file.path.collisionKey] { throw HybridError.pkg(.pathCollision(other.value, file.path.value)) }
            seen[file.path.collisionKey] = file.path
            try file.validate()
        }
        guard file(at: entry) != nil else { throw bad("entry \(entry) is not in the package") }
    }

    /// Whether `id` is a safe package id.
    public static func isValidID(_ id: String) -> Bool {
        guard (1...128).contains(id.utf8.count), id != ".", id != ".." else { return false }
        return id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7a)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    /// The JSON bytes a publisher signs.
    public func encoded() throws -> Data { try PackageDates.encoder.encode(self) }

    /// Decodes and validates manifest bytes (call only after their signature has verified).
    /// - Throws: ``PackageFailure/invalidManifest(_:)``, ``PackageFailure/invalidPath(path:reason:)`` for a file
    ///   path not in normal form, and the errors of ``validate()``.
    public static func decode(_ data: Data) throws -> PackageManifest {
        let manifest: PackageManifest
        do {
            manifest = try PackageDates.decoder.decode(PackageManifest.self, from: data)
        } catch let error as HybridError {
            throw error
        } catch {
            throw HybridError.pkg(.invalidManifest("\(error)"))
        }
        try manifest.validate()
        return manifest
    }
}

/// One file of a package: its bytes (`sha256`, `size`) and how they are stored (`blob`).
public struct PackageFile: Codable, Sendable, Equatable {
    /// The encoding of a blob stored as the file's bytes.
    public static let identity = "identity"

    /// The file's path inside the package, relative to the manifest's ``PackageManifest/origin``.
    public var path: PackagePath
    /// SHA-256 (lower-case hex) of the file's bytes; the client's store names the file by it.
    public var sha256: String
    /// The file's size in bytes.
    public var size: Int
    /// The MIME type to serve it with.
    public var type: String
    /// SHA-256 of the stored (possibly compressed) bytes: the blob's name in the repository.
    public var blob: String
    /// The size in bytes of the stored (possibly compressed) blob.
    public var storedSize: Int
    /// `identity` or the compressor's encoding (`zlib`).
    public var encoding: String
    /// Byte-level patches that make this file from its bytes in earlier versions (``DeltaPatch``),
    /// smallest first; absent when there are none. Signed with the rest of the manifest.
    public var patches: [PackagePatch]?

    /// A file entry, as ``PackageWriter`` records it.
    public init(path: PackagePath, sha256: String, size: Int, type: String, blob: String, storedSize: Int, encoding: String,
                patches: [PackagePatch]? = nil) {
        self.path = path
        self.sha256 = sha256
        self.size = size
        self.type = type
        self.blob = blob
        self.storedSize = storedSize
        self.encoding = encoding
        self.patches = patches
    }

    package func validate() throws {
        func bad(_ message: String) -> HybridError { .pkg(.invalidManifest("\(path): \(message)")) }
        guard PackageDates.isSHA256Hex(sha256), PackageDates.isSHA256Hex(blob) else { throw bad("digest is not 64 hex digits") }
        guard size >= 0, storedSize >= 0 else { throw bad("negative size") }
        guard !type.isEmpty, !type.contains(where: { $0 == "\r" || $0 == "\n" }) else { throw bad("bad type") }
        if encoding == Self.identity, blob != sha256 || storedSize != size { throw bad("identity blob differs from file") }
        var bases = Set<String>()
        for patch in patches ?? [] {
            guard PackageDates.isSHA256Hex(patch.base), PackageDates.isSHA256Hex(patch.blob) else { throw bad("patch digest is not 64 hex digits") }
            guard patch.base != sha256, bases.insert(patch.base).inserted else { throw bad("patch base repeated or the file itself") }
            guard patch.size > DeltaPatch.headerSize else { throw bad("patch smaller than its header") }
        }
    }
}

/// One byte-level patch of a file (``DeltaPatch``, `dcz`): it turns the file's bytes in an earlier
/// version, the base, into this version's bytes.
public struct PackagePatch: Codable, Sendable, Equatable {
    /// SHA-256 of the base's bytes: a client holding that blob can use the patch.
    public var base: String
    /// SHA-256 of the patch's bytes: its name under `blobs/` in the repository.
    public var blob: String
    /// The patch's size in bytes.
    public var size: Int

    /// A patch from `base` stored as `blob`, `size` bytes long.
    public init(base: String, blob: String, size: Int) {
        self.base = base
        self.blob = blob
        self.size = size
    }
}

