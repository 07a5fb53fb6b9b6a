#if os(Linux)
import Foundation
import Glibc

/// `hybrid run DIR --watch`: the directory's files, watched with inotify (every subdirectory too,
/// new ones as they appear). Saves come in bursts (an editor writes a temporary file and renames
/// it), so changes are handed over together once the directory has been quiet for ``quiet``
/// seconds, with the time of the first one.
///
/// All its state is touched on its own queue only; ``onChange`` is called on the main actor.
final class RunWatcher: @unchecked Sendable {
    /// A burst of changes: the files (relative to the root) and when the first was seen.
    struct Change: Sendable {
        var paths: [String]
        var firstSeen: ContinuousClock.Instant
        /// Only style sheets changed: they can be swapped in place, without a reload.
        var isStyleOnly: Bool { !paths.isEmpty && paths.allSatisfy { $0.lowercased().hasSuffix(".css") } }
    }

    /// How long the directory stays quiet before a burst is handed over.
    static let quiet: Double = 0.02
    private static let mask = UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_MOVED_FROM) | UInt32(IN_CREATE) | UInt32(IN_DELETE)

    private let root: URL
    private let fd: Int32
    private let onChange: @MainActor @Sendable (Change) -> Void
    private let queue = DispatchQueue(label: "hybrid.run.watch")
    private var directories: [Int32: String] = [:]
    private var source: (any DispatchSourceRead)?
    private var pending: [String] = []
    private var firstSeen: ContinuousClock.Instant?
    private var handOver: DispatchWorkItem?

    /// Watches `root` and everything under it.
    /// - Throws: ``RunError`` when inotify cannot be set up.
    init(root: URL, onChange: @escaping @MainActor @Sendable (Change) -> Void) throws {
        self.root = root.standardizedFileURL
        self.onChange = onChange
        fd = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        guard fd >= 0 else { throw RunError("--watch: inotify_init1 failed (errno \(errno))") }
        try queue.sync { try watchTree("") }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [weak self] in self?.read() }
        source.setCancelHandler { [fd] in close(fd) }
        self.source = source
        source.resume()
    }

    /// Stops watching; no change is handed over afterwards.
    func stop() { queue.sync { handOver?.cancel(); source?.cancel(); source = nil } }

    private func watchTree(_ relative: String) throws {
        let path = relative.isEmpty ? root.path : root.appendingPathComponent(relative).path
        let wd = inotify_add_watch(fd, path, Self.mask)
        guard wd >= 0 else { throw RunError("--watch: cannot watch \(path) (errno \(errno))") }
        directories[wd] = relative
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        for entry in entries where !Self.ignored(entry) {
            var isDirectory: ObjCBool = false
            let child = relative.isEmpty ? entry : relative + "/" + entry
            if FileManager.default.fileExists(atPath: root.appendingPathComponent(child).path, isDirectory: &isDirectory), isDirectory.boolValue {
                try watchTree(child)
            }
        }
    }

    /// Hidden files and editors' temporaries and backups are not the site's.
    private static func ignored(_ name: String) -> Bool {
        name.hasPrefix(".") || name.hasSuffix("~") || name.hasSuffix(".swp") || name.hasSuffix(".tmp")
    }

    private func read() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = Glibc.read(fd, &buffer, buffer.count)
            guard count > 0 else { break }
            var offset = 0
            let header = MemoryLayout<Int32>.size + 3 * MemoryLayout<UInt32>.size
            while offset + header <= count {
                let (wd, eventMask, length) = buffer.withUnsafeBytes { bytes in
                    (bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                     bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                     Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                let nameBytes = buffer[(offset + header)..<min(count, offset + header + length)].prefix { $0 != 0 }
                offset += header + length
                let name = String(decoding: nameBytes, as: UTF8.self)
                guard let directory = directories[wd], !name.isEmpty, !Self.ignored(name) else { continue }
                let path = directory.isEmpty ? name : directory + "/" + name
                if eventMask & UInt32(IN_ISDIR) != 0 {
                    if eventMask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0 { try? watchTree(path) }
                    continue
                }
                if eventMask & UInt32(IN_CREATE) != 0 { continue }   // its close-write follows
                if firstSeen == nil { firstSeen = .now }
                if !pending.contains(path) { pending.append(path) }
            }
        }
        scheduleHandOver()
    }

    private func scheduleHandOver() {
        guard !pending.isEmpty else { return }
        handOver?.cancel()
        let work = DispatchWorkItem { [weak self] in
            guard let self, let firstSeen = self.firstSeen else { return }
            let change = Change(paths: self.pending, firstSeen: firstSeen)
            self.pending = []
            self.firstSeen = nil
            let onChange = self.onChange
            Task { @MainActor in onChange(change) }
        }
        handOver = work
        queue.asyncAfter(deadline: .now() + Self.quiet, execute: work)
    }
}
#endif
