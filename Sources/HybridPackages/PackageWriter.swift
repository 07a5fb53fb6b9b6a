import Foundation
import HybridBase

/// Packs a directory into a static package repository (``PackageRepositoryLayout``): the
/// publisher side of `hybrid pack`.
///
/// Blobs are content-addressed, so re-packing unchanged files adds nothing; text-like files are
/// stored zlib-compressed when that saves at least a tenth. With a delta codec, every file that
/// differs from its counterpart in one of the last ``Options/patchDepth`` versions also gets a
/// byte-level patch from that content (``DeltaPatch``), listed in the signed manifest. The manifest
/// (and its compressed copy) and the pointer are written last, pointer after manifest, so a reader
/// never sees a version whose blobs or patches are missing.
public struct PackageWriter: Sendable {
    /// What to put in the manifest.
    public struct Options: Sendable {
        /// The package id (``PackageManifest/id``).
        public var id: String
        /// The new version; it must be above the repository's latest.
        public var version: Int
        /// The origin and path prefix the package serves (``PackageManifest/origin``).
        public var origin: String
        /// The entry document, relative to the package directory (`index.html` by default).
        public var entry: String
        /// Answer paths the package lacks with the entry (a single-page app's routes).
        public var spaFallback: Bool
        /// An extra Content-Security-Policy that tightens the default one.
        public var contentSecurityPolicy: String?
        /// The manifest's creation date; its expiry is counted from it.
        public var created: Date
        /// How long clients may install this version (default 30 days).
        public var lifetime: TimeInterval
        /// How many earlier versions each changed file gets a patch from (default 3; 0 for none).
        public var patchDepth: Int

        /// Options for version `version` of package `id`.
        public init(id: String, version: Int, origin: String, entry: String = "index.html", spaFallback: Bool = false,
                    contentSecurityPolicy: String? = nil, created: Date = Date(), lifetime: TimeInterval = 30 * 86_400,
                    patchDepth: Int = 3) {
            self.id = id
            self.version = version
            self.origin = origin
            self.entry = entry
            self.spaFallback = spaFallback
            self.contentSecurityPolicy = contentSecurityPolicy
            self.created = created
            self.lifetime = lifetime
            self.patchDepth = patchDepth
        }
    }

    /// Progress of a pack, reported after each file.
    public struct Progress: Sendable {
        /// Files stored so far.
        public var filesDone: Int
        /// Files in the directory.
        public var filesTotal: Int
        /// Bytes of the files stored so far (before compression).
        public var bytesDone: Int64
        /// Bytes of every file in the directory.
        public var bytesTotal: Int64
    }

    /// What a pack wrote.
    public struct Report: Sendable {
        /// The manifest written for the new version.
        public var manifest: PackageManifest
        /// Repository-relative path of the manifest.
        public var manifestPath: String
        /// Blobs written by this pack.
        public var blobsAdded: Int
        /// Blobs the repository already had (unchanged files).
        public var blobsReused: Int
        /// Stored bytes of the blobs this pack added.
        public var bytesAdded: Int64
        /// Files stored compressed.
        public var compressedFiles: Int
        /// Patches written by this pack.
        public var patchesAdded = 0
        /// Patches the repository already had (the same base and result in an earlier pack).
        public var patchesReused = 0
        /// Bytes of the patches this pack added.
        public var patchBytesAdded: Int64 = 0
    }

    /// Files smaller than this are stored as they are: zlib's header would eat the saving.
    static let compressionFloor = 256
    /// Files larger than this are stored as they are, so clients never inflate huge blobs in memory.
    static let compressionCeiling = 16 << 20

    /// The repository's root directory.
    public let repository: URL
    /// The digests and the compressor the writer uses.
    public let platform: PackagePlatform
    /// Signs the manifest and the pointer (the publisher's private key).
    public let signer: any Signer

    /// A writer into the repository at `repository`, signing with `signer`.
    public init(repository: URL, platform: PackagePlatform, signer: any Signer) {
        self.repository = repository
        self.platform = platform
        self.signer = signer
    }

    /// Packs `directory` as a new version.
    /// - Throws: ``PackageFailure/invalidPath(path:reason:)``, ``PackageFailure/pathCollision(_:_:)``,
    ///   ``PackageFailure/versionNotIncreasing(offered:latest:)``, ``PackageFailure/invalidManifest(_:)``, write failures.
    public func pack(_ directory: URL, options: Options, progress: (@Sendable (Progress) -> Void)? = nil) throws -> Report {
        try checkSignerIsCurrent()
        let sources = try Self.listFiles(in: directory)
        guard PackageManifest.isValidID(options.id) else {
            throw HybridError.pkg(.invalidManifest("id '\(options.id)' must be 1–128 of [A-Za-z0-9._-]"))
        }
        if let latest = latestVersion(options.id), options.version <= latest {
            throw HybridError.pkg(.versionNotIncreasing(offered: options.version, latest: latest))
        }
        let entry = try PackagePath(options.entry)
        let bytesTotal = sources.reduce(Int64(0)) { $0 + $1.size }
        var status = Progress(filesDone: 0, filesTotal: sources.count, bytesDone: 0, bytesTotal: bytesTotal)
        var files: [PackageFile] = []
        let bases = PackagePatchBases(repository: repository, id: options.id, below: options.version, depth: options.patchDepth)
        var report = Report(manifest: PackageManifest(id: options.id, version: options.version, origin: options.origin, entry: entry,
                                                      created: options.created, expires: options.created, files: []),
                            manifestPath: "", blobsAdded: 0, blobsReused: 0, bytesAdded: 0, compressedFiles: 0)
        for source in sources {
            let data: Data
            do { data = try Data(contentsOf: source.url, options: .mappedIfSafe) } catch {
                throw HybridError.pkg(.invalidPath(path: source.path.value, reason: "unreadable: \(error.localizedDescription)"))
            }
            var file = try store(data, path: source.path, report: &report)
            file.patches = try patches(for: file, data: data, bases: bases, report: &report)
            files.append(file)
            status.filesDone += 1
            status.bytesDone += Int64(data.count)
            progress?(status)
        }
        let manifest = PackageManifest(id: options.id, version: options.version, origin: options.origin, entry: entry,
                                       spaFallback: options.spaFallback, contentSecurityPolicy: options.contentSecurityPolicy,
                                       created: options.created, expires: options.created.addingTimeInterval(options.lifetime),
                                       files: files)
        try manifest.validate()
        report.manifest = manifest
        report.manifestPath = try publish(manifest)
        return report
    }

    /// Writes `manifest` as its version's signed manifest, with a compressed copy when the
    /// platform has a compressor, and points the package's signed pointer at it.
    /// - Returns: the manifest's repository-relative path.
    @discardableResult
    package func publish(_ manifest: PackageManifest) throws -> String {
        let manifestData = try manifest.encoded()
        let manifestPath = PackageRepositoryLayout.manifest(id: manifest.id, version: manifest.version)
        try write(manifestData, to: manifestPath)
        try write(DetachedSignature.fileData(try signer.sign(manifestData)), to: manifestPath + PackageRepositoryLayout.signatureSuffix)
        // The copy clients fetch: a manifest is mostly hex digests and repeated keys, and the
        // uncompressed one would be most of a small update's bytes (15 KB for 60 files).
        var compressed: (encoding: String, size: Int)?
        if let compressor = platform.compressor, let packed = compressor.compress(manifestData), packed.count < manifestData.count {
            try write(packed, to: PackageRepositoryLayout.compressedManifest(id: manifest.id, version: manifest.version, encoding: compressor.encoding))
            compressed = (compressor.encoding, manifestData.count)
        }
        let rotations = try KeyRotation.Signed.chain(in: repository)
        let pointer = PackagePointer(id: manifest.id, version: manifest.version, manifest: manifestPath,
                                     manifestSHA256: platform.digests.sha256Hex(manifestData), created: manifest.created,
                                     manifestSize: compressed?.size, manifestEncoding: compressed?.encoding,
                                     keySequence: rotations.isEmpty ? nil : rotations.count)
        let pointerData = try pointer.encoded()
        let pointerPath = PackageRepositoryLayout.pointer(id: manifest.id)
        try write(DetachedSignature.fileData(try signer.sign(pointerData)), to: pointerPath + ".next" + PackageRepositoryLayout.signatureSuffix)
        try write(pointerData, to: pointerPath + ".next")
        // Swap pointer and signature in as close together as two renames allow.
        try moveIntoPlace(pointerPath + ".next" + PackageRepositoryLayout.signatureSuffix, pointerPath + PackageRepositoryLayout.signatureSuffix)
        try moveIntoPlace(pointerPath + ".next", pointerPath)
        try updateIndex(adding: manifest.id)
        return manifestPath
    }

    /// Refuses a signer the repository's rotations moved away from, or whose window the last
    /// rotation closed: clients would refuse what it signs.
    /// - Throws: ``PackageFailure/invalidKey(_:)`` or ``PackageFailure/keyExpired(key:until:)``.
    func checkSignerIsCurrent(now: Date = Date()) throws {
        guard let last = try KeyRotation.Signed.chain(in: repository).last, let rotation = try? KeyRotation.decode(last.statement) else { return }
        guard rotation.next.publicKey == signer.publicKey else {
            throw HybridError.pkg(.invalidKey("the repository's signing key was rotated to \(rotation.next.fingerprint) (keys/rotation-\(rotation.sequence).json); sign with it"))
        }
        if let until = rotation.next.validUntil, until <= now {
            throw HybridError.pkg(.keyExpired(key: rotation.next.fingerprint, until: until))
        }
    }

    /// The version the repository's pointer names for `id`, if any.
    public func latestVersion(_ id: String) -> Int? {
        let url = repository.appendingPathComponent(PackageRepositoryLayout.pointer(id: id))
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        return (try? PackagePointer.decode(data, expectedID: id))?.version
    }

    private func store(_ data: Data, path: PackagePath, report: inout Report) throws -> PackageFile {
        let sha = platform.digests.sha256Hex(data)
        let type = PackageMediaTypes.type(for: path)
        var stored = data, encoding = PackageFile.identity
        if let compressor = platform.compressor, PackageMediaTypes.isCompressible(type),
           (Self.compressionFloor...Self.compressionCeiling).contains(data.count),
           let compressed = compressor.compress(data), compressed.count * 10 <= data.count * 9 {
            stored = compressed
            encoding = compressor.encoding
            report.compressedFiles += 1
        }
        let blob = encoding == PackageFile.identity ? sha : platform.digests.sha256Hex(stored)
        let blobPath = PackageRepositoryLayout.blob(blob)
        if FileManager.default.fileExists(atPath: repository.appendingPathComponent(blobPath).path) {
            report.blobsReused += 1
        } else {
            try write(stored, to: blobPath)
            report.blobsAdded += 1
            report.bytesAdded += Int64(stored.count)
        }
        return PackageFile(path: path, sha256: sha, size: data.count, type: type, blob: blob, storedSize: stored.count, encoding: encoding)
    }

    package func write(_ data: Data, to relativePath: String) throws {
        let store = PackageStore(root: repository)
        try store.atomicWrite(data, to: repository.appendingPathComponent(relativePath))
    }

    private func moveIntoPlace(_ from: String, _ to: String) throws {
        try PackageStore(root: repository).rename(repository.appendingPathComponent(from), to: repository.appendingPathComponent(to))
    }

    private func updateIndex(adding id: String) throws {
        let url = repository.appendingPathComponent(PackageRepositoryLayout.index)
        var index = FileManager.default.contents(atPath: url.path)
            .flatMap { try? JSONDecoder().decode(PackageRepositoryLayout.Index.self, from: $0) } ?? .init(packages: [])
        guard !index.packages.contains(id) else { return }
        index.packages = (index.packages + [id]).sorted()
        try write(try PackageDates.encoder.encode(index), to: PackageRepositoryLayout.index)
    }
}
