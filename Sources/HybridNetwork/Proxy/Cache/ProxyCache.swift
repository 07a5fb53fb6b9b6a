import Foundation
import HybridBase

/// The request proxy's HTTP cache (RFC 9111, private): proxied GETs are answered from it while
/// fresh, revalidated with their validators when stale, and stored as ``HTTPCachePolicy`` allows.
///
/// **Keys.** An entry is stored under its URL *and the credentials the request carried*: a SHA-256
/// of its `Cookie` and `Authorization` headers (the jar's cookies for that URL, the app's token).
/// A request with other cookies never reads an entry stored for another identity, so a response
/// for one signed-in user is never shown to another, nor to the signed-out page. Within a key, the
/// response's `Vary` decides (``HTTPCacheEntry/matches(varying:)``); one variant is kept per key.
///
/// **Bounds.** Entries live on disk, one file each, written atomically (a temporary file renamed
/// into place), under ``Configuration/directory``; the total stays under
/// ``Configuration/maxDiskBytes`` by evicting the least recently used. The most recently used
/// entries are also held decoded in memory, up to ``Configuration/maxMemoryBytes``. A file that
/// does not decode whole (cut short, changed, not an entry: ``HTTPCacheEntry/decode(_:)``) is
/// deleted and counts as a miss: nothing of it is served.
///
/// The cache sees requests and responses as values (URL, header fields, status, body), not the
/// transport's types; ``RequestProxy`` asks it before a hop is sent and tells it what came back.
public final class ProxyCache: @unchecked Sendable {
    /// Where and how much a ``ProxyCache`` stores (``ProxyPolicy/cache``).
    public struct Configuration: Sendable, Hashable {
        /// `false`: proxied requests neither read nor write a cache (every GET goes to the network).
        public var isEnabled: Bool
        /// The app's own cache directory; `nil` for ``defaultDirectory``. Give each app (and each
        /// user profile of it) a directory of its own: the cache is per directory.
        public var directory: URL?
        /// The most bytes the entries take on disk; least recently used entries go first. 50 MB by default.
        public var maxDiskBytes: Int
        /// The most bytes of entries held decoded in memory. 4 MB by default.
        public var maxMemoryBytes: Int
        /// The largest response stored (bigger ones pass through unstored). 8 MB by default, and
        /// never more than a quarter of ``maxDiskBytes``.
        public var maxEntryBytes: Int
        /// The most entries kept on disk; least recently used entries go first. Unbounded by default
        /// (``maxDiskBytes`` bounds them).
        public var maxEntries: Int

        /// A configuration; by default on, under ``defaultDirectory``, 50 MB on disk and 4 MB in memory.
        public init(isEnabled: Bool = true, directory: URL? = nil, maxDiskBytes: Int = 50 << 20, maxMemoryBytes: Int = 4 << 20,
                    maxEntryBytes: Int = 8 << 20, maxEntries: Int = .max) {
            self.isEnabled = isEnabled
            self.directory = directory
            self.maxDiskBytes = maxDiskBytes
            self.maxMemoryBytes = maxMemoryBytes
            self.maxEntryBytes = maxEntryBytes
            self.maxEntries = maxEntries
        }

        /// No cache.
        public static var disabled: Configuration { Configuration(isEnabled: false) }

        /// `<the user's cache directory>/HybridKit/proxy-http/<process name>` (`~/.cache/…` on
        /// Linux, `Library/Caches/…` on Apple platforms): one per app.
        public static var defaultDirectory: URL {
            let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
                ?? FileManager.default.temporaryDirectory
            return caches.appendingPathComponent("HybridKit/proxy-http/\(ProcessInfo.processInfo.processName)", isDirectory: true)
        }
    }

    /// What the cache did for a request, as ``ProxyRecord/cache`` reports it.
    public enum Outcome: String, Sendable, Hashable {
        /// Answered from the cache; nothing was sent.
        case hit
        /// A stored response was revalidated: the server answered 304 and the stored body was used.
        case revalidated
        /// Sent to the network (nothing usable was stored, or the mode said so); the response may have been stored.
        case miss
    }

    /// The configuration.
    public let configuration: Configuration
    /// The directory entries are stored in.
    public let directory: URL
    private let lock = NSLock()
    private var disk: [String: (size: Int, used: UInt64)] = [:]
    private var memory: [String: (entry: HTTPCacheEntry, size: Int, used: UInt64)] = [:]
    private var diskBytes = 0
    private var memoryBytes = 0
    private var clock: UInt64 = 0

    private static let open = LockedState<[String: ProxyCache]>([:])

    /// The cache for `configuration`'s directory: one instance per directory in a process (every
    /// ``RequestProxy`` of the app shares it, so the bounds hold for the directory as a whole).
    /// The first configuration opened for a directory sets its bounds.
    public static func opening(_ configuration: Configuration) -> ProxyCache {
        let path = (configuration.directory ?? Configuration.defaultDirectory).standardizedFileURL.path
        return open.withLock { caches in
            if let cache = caches[path] { return cache }
            let cache = ProxyCache(configuration: configuration)
            caches[path] = cache
            return cache
        }
    }

    /// A cache in ``Configuration/directory`` (made if missing); entries already there are
    /// indexed, oldest modification first, and the bound is applied. Use ``opening(_:)`` to share
    /// one per directory.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        directory = configuration.directory ?? Configuration.defaultDirectory
        guard configuration.isEnabled else { return }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys)) ?? []
        let found = files.compactMap { file -> (String, Int, Date)? in
            let name = file.lastPathComponent
            if name.hasPrefix(".tmp-") { try? FileManager.default.removeItem(at: file); return nil }
            guard Self.isEntryName(name), let values = try? file.resourceValues(forKeys: Set(keys)) else { return nil }
            return (name, values.fileSize ?? 0, values.contentModificationDate ?? .distantPast)
        }
        for (name, size, _) in found.sorted(by: { $0.2 < $1.2 }) {
            clock += 1
            disk[name] = (size, clock)
            diskBytes += size
        }
        lock.withLock { evict() }
    }

    /// The total bytes on disk and in memory (for tests and the app's own accounting).
    public var usage: (disk: Int, memory: Int) { lock.withLock { (diskBytes, memoryBytes) } }

    /// The identity a request's credentials give it: a SHA-256 of its `Cookie` and `Authorization`
    /// values (never the values themselves), or `anonymous` when it has neither.
    public static func identity(_ headers: [HTTPCacheEntry.Field]) -> String {
        let cookie = HTTPCachePolicy.values("cookie", in: headers).joined(separator: "; ")
        let authorization = HTTPCachePolicy.values("authorization", in: headers).joined(separator: ", ")
        guard !cookie.isEmpty || !authorization.isEmpty else { return "anonymous" }
        return String(HTTPCacheEntry.hex(SubresourceIntegrity.Algorithm.sha256.digest(Data("\(cookie)\n\(authorization)".utf8))).prefix(40))
    }

    /// The file name of the entry for `url` and `identity`.
    static func name(url: String, identity: String) -> String {
        let hash = HTTPCacheEntry.hex(SubresourceIntegrity.Algorithm.sha256.digest(Data(url.utf8))).prefix(40)
        return "\(hash)-\(identity).entry"
    }

    private static func isEntryName(_ name: String) -> Bool { name.hasSuffix(".entry") && !name.hasPrefix(".") }

    /// Whether entries are held decoded in memory (``Configuration/maxMemoryBytes`` above 0).
    var holdsEntries: Bool { configuration.isEnabled && configuration.maxMemoryBytes > 0 }

    /// The stored entry for `url` and `identity`, if there is a whole one; a corrupt file is deleted.
    public func entry(url: String, identity: String) -> HTTPCacheEntry? { entry(url: url, identity: identity, heldOnly: false) }

    /// The stored entry, looked for only in memory with `heldOnly` (no file is read).
    func entry(url: String, identity: String, heldOnly: Bool) -> HTTPCacheEntry? {
        let name = Self.name(url: url, identity: identity)
        return lock.withLock { () -> HTTPCacheEntry? in
            clock += 1
            if var held = memory[name] {
                held.used = clock
                memory[name] = held
                disk[name]?.used = clock
                return held.entry
            }
            guard !heldOnly, disk[name] != nil else { return nil }
            let file = directory.appendingPathComponent(name)
            guard let data = try? Data(contentsOf: file), let entry = try? HTTPCacheEntry.decode(data),
                  entry.url == url, entry.identity == identity else {
                // Cut short, changed, or another key's bytes under this name: never served.
                dropLocked(name)
                return nil
            }
            disk[name]?.used = clock
            hold(name, entry, size: data.count)
            return entry
        }
    }

    /// Stores `entry` (replacing what its key held), unless it is larger than ``Configuration/maxEntryBytes``.
    public func store(_ entry: HTTPCacheEntry) {
        guard configuration.isEnabled else { return }
        let name = Self.name(url: entry.url, identity: entry.identity)
        let data = entry.encoded()
        guard data.count <= min(configuration.maxEntryBytes, configuration.maxDiskBytes / 4) else { return remove(name: name) }
        do {
            // Foundation's atomic write: a temporary file beside it, renamed over the entry.
            try data.write(to: directory.appendingPathComponent(name), options: .atomic)
        } catch {
            return remove(name: name)
        }
        lock.withLock {
            clock += 1
            diskBytes -= disk[name]?.size ?? 0
            disk[name] = (data.count, clock)
            diskBytes += data.count
            hold(name, entry, size: data.count)
            evict()
        }
    }

    /// Removes every identity's entry for `url` that this cache indexed — what an unsafe method's
    /// success does to its target (RFC 9111 §4.4).
    public func invalidate(url: String) {
        let prefix = String(Self.name(url: url, identity: "").dropLast("-.entry".count))
        lock.withLock { disk.keys.filter { $0.hasPrefix(prefix + "-") }.forEach(dropLocked) }
    }

    /// Removes the entry for `url` and `identity`, if there is one.
    public func remove(url: String, identity: String) { remove(name: Self.name(url: url, identity: identity)) }

    private func remove(name: String) { lock.withLock { dropLocked(name) } }

    private func dropLocked(_ name: String) {
        if let held = memory.removeValue(forKey: name) { memoryBytes -= held.size }
        if let stored = disk.removeValue(forKey: name) { diskBytes -= stored.size }
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
    }

    private func hold(_ name: String, _ entry: HTTPCacheEntry, size: Int) {
        memoryBytes -= memory[name]?.size ?? 0
        guard size <= configuration.maxMemoryBytes else { memory[name] = nil; return }
        memory[name] = (entry, size, clock)
        memoryBytes += size
    }

    /// Applies the bounds (memory; disk bytes and entries), least recently used first.
    private func evict() {
        while memoryBytes > configuration.maxMemoryBytes, let oldest = memory.min(by: { $0.value.used < $1.value.used }) {
            memory[oldest.key] = nil
            memoryBytes -= oldest.value.size
        }
        while diskBytes > configuration.maxDiskBytes || disk.count > configuration.maxEntries,
              let oldest = disk.min(by: { $0.value.used < $1.value.used }) {
            dropLocked(oldest.key)
        }
    }
}
