import Foundation
import HybridBase

/// Launch integrity: finds installed files that are no longer what the signed manifest says (a
/// file truncated or zeroed by a crash, a power cut, a cleaner or a restore) before they are served,
/// and repairs them from the repository, or rolls back to the previous version when that cannot be
/// done; what it cannot repair is removed, so the scheme handler fetches it from the network.
///
/// How much it checks, and why:
/// - **Full** (every file's SHA-256) the first time a version is checked after activation, and
///   whenever the record of the last check is missing. The installer already hashed every blob at
///   install; this catches what happened on disk between install and first serve.
/// - **Quick** on every other launch: a `stat` of every file (size, modification time, inode
///   against the record of the last full check) and the SHA-256 of the entry document and of every
///   file whose `stat` changed. Every byte the store writes is `fsync`ed before the `rename` that
///   publishes it, so a file verified once cannot be torn by our own writes later; the damage seen
///   in the field (truncation, zero-fill, replacement) rewrites the file, which changes its size,
///   time or inode. Hashing everything on every launch would put ~10 ms per 4 MB on the launch
///   path; 60 `stat`s cost well under a millisecond.
public struct PackageIntegrity: Sendable {
    /// How deep a check went.
    public enum Depth: String, Sendable, Codable {
        /// Every file hashed.
        case full
        /// `stat` of every file; hashes of the entry and of what changed.
        case quick
    }

    /// What a launch check found and did.
    public struct Report: Sendable, Equatable {
        /// The package.
        public var id: String
        /// The version checked (the active one when the check began).
        public var version: Int
        /// How deep the check went.
        public var depth: Depth
        /// Distinct files (by content) looked at.
        public var checked = 0
        /// Files hashed.
        public var hashed = 0
        /// Paths whose bytes were wrong, sorted.
        public var damaged: [String] = []
        /// Paths restored from the repository, sorted.
        public var repaired: [String] = []
        /// The version rolled back to when the damage could not be repaired (`nil`: none).
        public var rolledBackTo: Int?
        /// Paths left removed (served from the network until an update brings them back), sorted.
        public var unrepaired: [String] = []
        /// Everything the active version holds is its signed bytes.
        public var isIntact: Bool { damaged.isEmpty }
    }

    /// The `stat` of one file at its last check.
    struct Stamp: Codable, Equatable {
        package var size: Int64
        package var modified: Double
        var inode: UInt64
    }

    /// The record of the last full check of a version.
    struct Record: Codable {
        package var version: Int
        package var files: [String: Stamp]
    }

    /// The installer whose store is checked (and which rolls back).
    public let installer: PackageInstaller

    /// A checker of `installer`'s store.
    public init(installer: PackageInstaller) { self.installer = installer }

    /// Checks the active version of `id` and repairs what is damaged.
    /// - Parameter repairFrom: the updater whose repository damaged files are fetched from again
    ///   (full blobs, verified as an update verifies them); `nil` to skip straight to rollback.
    /// - Returns: what was checked, damaged, repaired or rolled back.
    /// - Throws: ``PackageFailure/notInstalled(_:)``, or a store write failure.
    public func checkAtLaunch(_ id: String, repairFrom updater: PackageUpdater? = nil) async throws -> Report {
        let store = installer.store
        let package = try store.activePackage(id)
        let manifest = package.manifest
        let record = (try? Data(contentsOf: recordURL(id))).flatMap { try? JSONDecoder().decode(Record.self, from: $0) }
        let depth: Depth = record?.version == manifest.version ? .quick : .full
        var report = Report(id: id, version: manifest.version, depth: depth)

        var files: [String: PackageFile] = [:]
        for file in manifest.files where files[file.sha256] == nil { files[file.sha256] = file }
        var damaged: [PackageFile] = []
        for (sha, file) in files.sorted(by: { $0.key < $1.key }) {
            report.checked += 1
            let url = store.blobURL(sha)
            let stamp = Self.stamp(url)
            let mustHash = depth == .full || stamp == nil || stamp != record?.files[sha] || file.path == manifest.entry
            guard mustHash else { continue }
            report.hashed += 1
            if !hashMatches(url, file) { damaged.append(file) }
        }
        let damagedSHAs = Set(damaged.map(\.sha256))
        report.damaged = manifest.files.filter { damagedSHAs.contains($0.sha256) }.map(\.path.value).sorted()
        // Whatever happens next, a damaged blob must never be served again.
        for file in damaged { try? FileManager.default.removeItem(at: store.blobURL(file.sha256)) }

        if !damaged.isEmpty, let updater {
            let restored = await updater.refetch(damaged)
            report.repaired = manifest.files.filter { restored.contains($0.sha256) }.map(\.path.value).sorted()
            damaged.removeAll { restored.contains($0.sha256) }
        }
        if !damaged.isEmpty {
            if let previous = store.activeRecord(id)?.previous, previousIsIntact(id, version: previous) {
                report.rolledBackTo = try installer.rollback(id, rejecting: false)
            } else {
                let left = Set(damaged.map(\.sha256))
                report.unrepaired = manifest.files.filter { left.contains($0.sha256) }.map(\.path.value).sorted()
            }
        }
        if report.rolledBackTo == nil, report.unrepaired.isEmpty {
            try saveRecord(id, version: manifest.version, shas: Array(files.keys))
        } else {
            try? FileManager.default.removeItem(at: recordURL(id))   // check everything again next launch
        }
        return report
    }

    // MARK: Internals

    func recordURL(_ id: String) -> URL { installer.store.packageDirectory(id).appendingPathComponent("integrity.json") }

    static func stamp(_ url: URL) -> Stamp? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
        return Stamp(size: (attributes[.size] as? NSNumber)?.int64Value ?? -1,
                     modified: (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0,
                     inode: (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0)
    }

    private func hashMatches(_ url: URL, _ file: PackageFile) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        var digest = installer.platform.digests.makeSHA256()
        var size = 0
        while let chunk = try? handle.read(upToCount: 1 << 16), !chunk.isEmpty {
            size += chunk.count
            digest.update(chunk)
        }
        return size == file.size && digest.finalize().lowercaseHex == file.sha256
    }

    private func previousIsIntact(_ id: String, version: Int) -> Bool {
        guard let manifest = try? installer.store.manifest(id, version: version) else { return false }
        return manifest.files.allSatisfy { hashMatches(installer.store.blobURL($0.sha256), $0) }
    }

    private func saveRecord(_ id: String, version: Int, shas: [String]) throws {
        var stamps: [String: Stamp] = [:]
        for sha in shas { stamps[sha] = Self.stamp(installer.store.blobURL(sha)) }
        try installer.store.atomicWrite(try JSONEncoder().encode(Record(version: version, files: stamps)), to: recordURL(id))
    }
}

extension PackageUpdater {
    /// Fetches the full blobs of `files` again, each verified as an update verifies it.
    /// - Returns: the SHA-256s now back in the store.
    func refetch(_ files: [PackageFile]) async -> Set<String> {
        let downloader = PackageDownloader(digests: installer.platform.digests, timeout: timeout, deadlines: deadlines)
        var restored = Set<String>()
        for file in files {
            let fetched = try? await downloader.fetch(file, from: url(PackageRepositoryLayout.blob(file.blob)), into: installer.store,
                                                      platform: installer.platform, onBytes: { _ in })
            if fetched != nil, installer.store.hasBlob(file.sha256) { restored.insert(file.sha256) }
        }
        return restored
    }
}
