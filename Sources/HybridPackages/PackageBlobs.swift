import Foundation

extension PackageStore.ActiveRecord {
    /// The versions whose manifests (and blobs) must stay on disk.
    var keptVersions: Set<Int> { Set([current] + (previous.map { [$0] } ?? [])) }
}

/// What a garbage collection removed.
public struct PackageCollection: Sendable, Equatable {
    /// Blobs removed (no kept version references them).
    public var removedBlobs = 0
    /// Bytes those blobs took on disk.
    public var removedBytes: Int64 = 0
    /// Partial downloads removed (older than a day, or the grace period if longer).
    public var removedPartials = 0
}

extension PackageStore {
    /// Moves a file whose bytes were already verified against `sha256` into the blob store.
    ///
    /// Needs no lock: blobs are named by their content, so two writers of one name write the
    /// same bytes, and `rename` makes whichever lands last whole.
    /// - Throws: a write failure (the source is removed either way).
    func adoptBlob(at source: URL, sha256: String) throws {
        let destination = blobURL(sha256)
        try createDirectory(destination.deletingLastPathComponent())
        try rename(source, to: destination)
    }

    /// Writes verified bytes as the blob `sha256`, honouring injected write faults.
    func writeBlob(_ data: Data, sha256: String) throws {
        try atomicWrite(data, to: blobURL(sha256))
    }

    /// Removes blobs no kept version of any package references, and stale partial downloads.
    ///
    /// Blobs younger than ``Config/gcGracePeriod`` are spared: another updater may have just
    /// downloaded them for a version it is about to stage.
    @discardableResult
    public func collectGarbage(now: Date = Date()) throws -> PackageCollection {
        try withLock { try collectGarbageLocked(now: now) }
    }

    func collectGarbageLocked(now: Date) throws -> PackageCollection {
        let fm = FileManager.default
        var referenced = Set<String>()
        let ids = (try? fm.contentsOfDirectory(atPath: packagesDirectory.path)) ?? []
        for id in ids {
            guard let record = activeRecord(id) else { continue }
            for version in record.keptVersions {
                // An unreadable kept manifest means we cannot tell what is garbage: collect nothing.
                let manifest = try self.manifest(id, version: version)
                referenced.formUnion(manifest.files.map(\.sha256))
            }
        }
        var result = PackageCollection()
        let cutoff = now.addingTimeInterval(-config.gcGracePeriod)
        for shard in (try? fm.contentsOfDirectory(atPath: blobsDirectory.path)) ?? [] {
            let shardURL = blobsDirectory.appendingPathComponent(shard)
            for name in (try? fm.contentsOfDirectory(atPath: shardURL.path)) ?? [] where !referenced.contains(name) {
                let url = shardURL.appendingPathComponent(name)
                let attributes = try? fm.attributesOfItem(atPath: url.path)
                if let modified = attributes?[.modificationDate] as? Date, modified > cutoff { continue }
                if (try? fm.removeItem(at: url)) != nil {
                    result.removedBlobs += 1
                    result.removedBytes += (attributes?[.size] as? NSNumber)?.int64Value ?? 0
                }
            }
        }
        // Partial downloads live longer (a day at least) so an interrupted update can resume.
        let partialCutoff = now.addingTimeInterval(-max(config.gcGracePeriod, 86_400))
        for name in (try? fm.contentsOfDirectory(atPath: partialDirectory.path)) ?? [] {
            let url = partialDirectory.appendingPathComponent(name)
            let modified = (try? fm.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
            if let modified, modified < partialCutoff, (try? fm.removeItem(at: url)) != nil { result.removedPartials += 1 }
        }
        return result
    }
}
