import Foundation
import HybridBase

/// The identity of a file as it is on disk now: a new file renamed into place, a rewrite or a
/// truncation changes it. One `stat(2)`, no read.
package struct FileStamp: Equatable, Sendable {
    package var device: UInt64
    var inode: UInt64
    package var size: Int64
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int

    /// `nil` when `path` does not exist (or cannot be looked at).
    package init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        #if canImport(Darwin)
        modifiedSeconds = Int(info.st_mtimespec.tv_sec)
        modifiedNanoseconds = Int(info.st_mtimespec.tv_nsec)
        #else
        modifiedSeconds = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
        #endif
    }
}

/// The bytes of a package's small files, kept in memory once read, so a page opened again (a
/// pooled view's next open) is served on the main thread without reading the disk.
///
/// Each entry is the bytes of one blob together with the blob's ``FileStamp`` taken before they
/// were read, and is used only while the blob on disk still has that stamp: a repaired, damaged
/// or collected blob is read again (or missed) exactly as without the cache. At most
/// ``maxFileBytes`` per file and ``maxTotalBytes`` in all, the oldest forgotten first.
package final class PackageByteCache: @unchecked Sendable {
    /// Files larger than this are read from the disk on every request.
    let maxFileBytes: Int
    /// What the cache holds at most.
    package let maxTotalBytes: Int
    private let lock = NSLock()
    private var blobs: [String: (stamp: FileStamp, data: Data)] = [:]
    private var order: [String] = []
    private var total = 0

    package init(maxFileBytes: Int = PackageResolver.streamThreshold, maxTotalBytes: Int = 16 << 20) {
        self.maxFileBytes = maxFileBytes
        self.maxTotalBytes = maxTotalBytes
    }

    /// The bytes of `file` when they were read before from `blob` and it has not changed since.
    package func bytes(of file: PackageFile, at blob: URL) -> Data? {
        guard let kept = lock.withLock({ blobs[file.sha256] }), FileStamp(blob.path) == kept.stamp else { return nil }
        return kept.data
    }

    /// Keeps `data`, the whole of `file` as read from a blob stamped `stamp` before the read.
    package func keep(_ data: Data, of file: PackageFile, stamp: FileStamp) {
        guard data.count == file.size, Int64(data.count) == stamp.size, data.count <= maxFileBytes, data.count <= maxTotalBytes else { return }
        lock.withLock {
            total -= blobs.removeValue(forKey: file.sha256)?.data.count ?? 0
            order.removeAll { $0 == file.sha256 }
            while total + data.count > maxTotalBytes, !order.isEmpty {
                let oldest = order.removeFirst()
                total -= blobs.removeValue(forKey: oldest)?.data.count ?? 0
            }
            blobs[file.sha256] = (stamp, data)
            order.append(file.sha256)
            total += data.count
        }
    }

    /// Bytes held.
    package var count: Int { lock.withLock { total } }
}

/// What ``PackageSchemeHandler`` keeps between requests: the active version it last read (with
/// the ``FileStamp`` of the `active.json` it read it from, so an activation or rollback — always
/// a new file renamed into place — is seen on the next request), its resolver, and the bytes read.
package final class PackageServingCache: @unchecked Sendable {
    package let bytes = PackageByteCache()
    private let lock = NSLock()
    private var active: (stamp: FileStamp, resolver: PackageResolver)?
    /// An empty cache.
    package init() {}

    /// Resolves `request` on the calling thread without reading a file: `nil` unless the active
    /// version is the one last read and every byte the answer needs is in memory.
    package func resolveFromMemory(_ request: SchemeRequest, activeFile: URL, connectSources: [String] = []) -> PackageResolver.Resolution? {
        guard let cached = lock.withLock({ active }), FileStamp(activeFile.path) == cached.stamp,
              cached.resolver.connectSources == connectSources else { return nil }
        return cached.resolver.resolveFromMemory(request, bytes: bytes)
    }

    /// The manifest of the active version of `id`, from memory while the active record is the
    /// file the last resolver was made from (one `stat`), else read: its record and, when the
    /// version changed, its manifest. `nil` when none is installed. Reads nothing into the cache
    /// (the next ``resolver(store:id:scheme:connectSources:)`` does).
    package func activeManifest(store: PackageStore, id: String) -> PackageManifest? {
        let stamp = FileStamp(store.activeURL(id).path)
        let cached = lock.withLock { active }
        if let stamp, let cached, cached.stamp == stamp, cached.resolver.package.manifest.id == id {
            return cached.resolver.package.manifest
        }
        guard let record = store.activeRecord(id) else { return nil }
        if let manifest = cached?.resolver.package.manifest, manifest.id == id, manifest.version == record.current { return manifest }
        return try? store.manifest(id, version: record.current)
    }

    /// The resolver of the active version of `id` (reading its record and, when it changed, its
    /// manifest); `nil` when none is installed.
    package func resolver(store: PackageStore, id: String, scheme: String, connectSources: [String] = []) -> PackageResolver? {
        // The stamp is taken before the record is read: a write in between leaves an old stamp,
        // so the next request reads again rather than trusting a stale record.
        let stamp = FileStamp(store.activeURL(id).path)
        guard let record = store.activeRecord(id) else { return nil }
        let resolver: PackageResolver
        if let cached = lock.withLock({ active })?.resolver, cached.package.manifest.id == id,
           cached.package.manifest.version == record.current, cached.connectSources == connectSources {
            resolver = cached
        } else {
            guard let manifest = try? store.manifest(id, version: record.current) else { return nil }
            resolver = PackageResolver(package: InstalledPackage(manifest: manifest, store: store), customScheme: scheme,
                                       connectSources: connectSources)
        }
        lock.withLock { active = stamp.map { ($0, resolver) } }
        return resolver
    }
}
