import Foundation
import HybridBase

/// The on-device namespace of installed packages, in the manner of Kingfisher's `DiskStorage`:
/// a ``Config`` and the layout every other package type works through.
///
/// ```
/// STORE/.lock                          flock: one installer at a time per store
/// STORE/blobs/AB/ABCDEF…               file contents, named by SHA-256 of the file's bytes
/// STORE/partial/BLOB.part              partial downloads (stored bytes), kept for resume
/// STORE/packages/ID/active.json        which version serves: {current, previous, confirmed}
/// STORE/packages/ID/versions/N/        manifest.json + manifest.json.sig of each kept version
/// STORE/packages/ID/staging/…          versions being installed; removed on restart
/// STORE/state/ID.json                  highest version ever seen, rejected versions
/// ```
///
/// `state/` lives outside the package directory on purpose: deleting a package must not let an
/// older signed manifest be replayed.
public struct PackageStore: Sendable {
    /// Where the store lives and how it behaves.
    public struct Config: Sendable {
        /// The store's directory.
        public var root: URL
        /// How long an installer waits for another one's lock before failing with `store_busy`.
        public var lockTimeout: TimeInterval
        /// Unreferenced blobs younger than this survive garbage collection, because a concurrent
        /// updater may have just downloaded them for a version it has not staged yet.
        public var gcGracePeriod: TimeInterval
        /// Injected faults (tests only).
        public var faults: PackageFaults?

        /// A configuration; by default a 30-second lock timeout, a 10-minute garbage-collection grace
        /// and no faults.
        public init(root: URL, lockTimeout: TimeInterval = 30, gcGracePeriod: TimeInterval = 600, faults: PackageFaults? = nil) {
            self.root = root
            self.lockTimeout = lockTimeout
            self.gcGracePeriod = gcGracePeriod
            self.faults = faults
        }
    }

    /// Which version of a package serves, and which one to fall back to.
    public struct ActiveRecord: Codable, Sendable, Equatable {
        /// The version that serves.
        public var current: Int
        /// Kept until `current` has loaded once; the rollback target.
        public var previous: Int?
        /// Whether `current` has loaded successfully at least once.
        public var confirmed: Bool
    }

    /// What this device remembers about a package beyond its files.
    public struct State: Codable, Sendable, Equatable {
        /// The highest version whose signed manifest was ever accepted; anything below it is refused.
        public var highestSeen: Int = 0
        /// Versions rolled back here; the updater will not install them again.
        public var rejected: [Int] = []
    }

    /// Where the store lives and how it behaves.
    public let config: Config

    /// A store with `config`.
    public init(_ config: Config) { self.config = config }

    /// A store at `root` with default settings.
    public init(root: URL) { self.init(Config(root: root)) }

    // MARK: Layout

    package var root: URL { config.root }
    var lockURL: URL { root.appendingPathComponent(".lock") }
    var blobsDirectory: URL { root.appendingPathComponent("blobs") }
    var partialDirectory: URL { root.appendingPathComponent("partial") }
    var packagesDirectory: URL { root.appendingPathComponent("packages") }
    var stateDirectory: URL { root.appendingPathComponent("state") }

    func blobURL(_ sha256: String) -> URL {
        blobsDirectory.appendingPathComponent(String(sha256.prefix(2))).appendingPathComponent(sha256)
    }
    func partialURL(_ blob: String) -> URL { partialDirectory.appendingPathComponent(blob + ".part") }
    func packageDirectory(_ id: String) -> URL { packagesDirectory.appendingPathComponent(id) }
    func versionsDirectory(_ id: String) -> URL { packageDirectory(id).appendingPathComponent("versions") }
    func versionDirectory(_ id: String, _ version: Int) -> URL { versionsDirectory(id).appendingPathComponent(String(version)) }
    func stagingDirectory(_ id: String) -> URL { packageDirectory(id).appendingPathComponent("staging") }
    package func activeURL(_ id: String) -> URL { packageDirectory(id).appendingPathComponent("active.json") }
    package func stateURL(_ id: String) -> URL { stateDirectory.appendingPathComponent(id + ".json") }

    // MARK: Queries

    /// Whether the store holds the file contents with this SHA-256.
    public func hasBlob(_ sha256: String) -> Bool {
        FileManager.default.fileExists(atPath: blobURL(sha256).path)
    }

    /// Ids of every package with an installed version.
    public func packageIDs() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: packagesDirectory.path)) ?? []
        return names.filter { activeRecord($0) != nil }.sorted()
    }

    /// The active record of a package, or `nil` when none is installed.
    public func activeRecord(_ id: String) -> ActiveRecord? {
        guard PackageManifest.isValidID(id), let data = FileManager.default.contents(atPath: activeURL(id).path) else { return nil }
        return try? JSONDecoder().decode(ActiveRecord.self, from: data)
    }

    /// The version that serves, or `nil`.
    public func activeVersion(_ id: String) -> Int? { activeRecord(id)?.current }

    /// What this device remembers about `id` (highest version seen, rejected versions).
    public func state(_ id: String) -> State {
        guard let data = FileManager.default.contents(atPath: stateURL(id).path),
              let state = try? JSONDecoder().decode(State.self, from: data) else { return State() }
        return state
    }

    /// The manifest of an installed version.
    /// - Throws: ``PackageFailure/notInstalled(_:)``.
    public func manifest(_ id: String, version: Int) throws -> PackageManifest {
        let url = versionDirectory(id, version).appendingPathComponent("manifest.json")
        guard let data = FileManager.default.contents(atPath: url.path) else { throw HybridError.pkg(.notInstalled("\(id)@\(version)")) }
        return try PackageManifest.decode(data)
    }

    /// The active version of `id`, ready to serve.
    /// - Throws: ``PackageFailure/notInstalled(_:)``.
    public func activePackage(_ id: String) throws -> InstalledPackage {
        guard let record = activeRecord(id) else { throw HybridError.pkg(.notInstalled(id)) }
        return InstalledPackage(manifest: try manifest(id, version: record.current), store: self)
    }

    // MARK: Writing

    /// Writes `data` to `url` atomically (temporary file + rename), honouring injected faults.
    /// - Throws: ``PackageFailure/diskFull(path:)`` or ``PackageFailure/writeFailed(path:message:)``.
    func atomicWrite(_ data: Data, to url: URL) throws {
        try rename(try writeTemporary(data, for: url), to: url)
    }

    /// Writes `data` to a new temporary file beside `url` and `fsync`s it: without the sync, a
    /// power cut after the caller's rename can leave an empty file under the final name.
    /// - Returns: the temporary file, for the caller to rename into place.
    func writeTemporary(_ data: Data, for url: URL) throws -> URL {
        try createDirectory(url.deletingLastPathComponent())
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp-\(UUID().uuidString)")
        try config.faults?.willWrite(data.count, to: url.path)
        do {
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                throw HybridError.pkg(.writeFailed(path: temporary.path, message: "cannot create"))
            }
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            try handle.write(contentsOf: data)
            try handle.synchronize()
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw Self.writeError(error, path: url.path)
        }
        return temporary
    }

    /// `rename(2)`: atomic replacement within one file system.
    package func rename(_ source: URL, to destination: URL) throws {
        guard Foundation.rename(source.path, destination.path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: source)
            throw HybridError.pkg(.writeFailed(path: destination.path, message: String(cString: strerror(code))))
        }
    }

    package func createDirectory(_ url: URL) throws {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw Self.writeError(error, path: url.path)
        }
    }

    static func writeError(_ error: any Error, path: String) -> HybridError {
        if let error = error as? HybridError { return error }
        let ns = error as NSError
        let posix = (ns.userInfo[NSUnderlyingErrorKey] as? NSError)?.code ?? (ns.domain == NSPOSIXErrorDomain ? ns.code : 0)
        if posix == Int(ENOSPC) || ns.code == CocoaError.fileWriteOutOfSpace.rawValue {
            return .pkg(.diskFull(path: path))
        }
        return .pkg(.writeFailed(path: path, message: ns.localizedDescription))
    }
}

/// One installed version of a package, resolved against its store's blobs.
public struct InstalledPackage: Sendable {
    /// The version's manifest.
    public let manifest: PackageManifest
    /// The store holding its blobs.
    public let store: PackageStore

    /// The on-disk file holding `file`'s bytes.
    public func contentsURL(of file: PackageFile) -> URL { store.blobURL(file.sha256) }
}
