import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Brings packages in a ``PackageStore`` up to date from a static repository over HTTP.
///
/// Fetches the signed pointer and manifest; refuses a bad or missing signature, a version
/// below the highest ever seen, or an expired manifest; downloads only the blobs the store
/// lacks, a bounded number at a time, each streamed through SHA-256 and size checks and resumed
/// with `Range` when an earlier attempt was cut off; then hands the version to the
/// ``PackageInstaller``. Any failure leaves the active version serving.
public struct PackageUpdater: Sendable {
    /// Where an update is.
    public enum Phase: String, Sendable {
        /// Fetching the pointer and manifest, downloading missing blobs, installing the version, finished.
        case checking, downloading, installing, done
    }

    /// Progress, reported as it changes (from any thread).
    public struct Progress: Sendable {
        /// The package being updated.
        public var id: String
        /// What the update is doing now.
        public var phase: Phase
        /// Blobs downloaded so far.
        public var blobsDone: Int
        /// Blobs to download (those the store lacks).
        public var blobsTotal: Int
        /// Blob bytes received so far.
        public var bytesReceived: Int64
        /// Stored bytes of the blobs to download.
        public var bytesExpected: Int64
    }

    /// What an update did.
    public struct Report: Sendable {
        /// The package that was updated.
        public var id: String
        /// The version active before the update (`nil` when none was installed).
        public var previousVersion: Int?
        /// What the installer did; `nil` when nothing was installed (already up to date).
        public var outcome: PackageInstaller.Outcome?
        /// `true` when the repository had nothing newer.
        public var upToDate: Bool
        /// Blobs downloaded by this update.
        public var blobsFetched = 0
        /// Blobs the store already held (shared with other versions or packages).
        public var blobsReused = 0
        /// Blob bytes fetched over the network (stored form).
        public var bytesFetched: Int64 = 0
        /// Blob bytes a resumed download did not fetch again.
        public var bytesResumed: Int64 = 0
        /// Bytes of pointer, manifest and signatures.
        public var documentBytes: Int64 = 0
        /// Paths of the files whose blobs were fetched, sorted.
        public var fetchedPaths: [String] = []

        /// Everything this update transferred: blobs plus documents.
        public var totalBytes: Int64 { bytesFetched + documentBytes }
    }

    /// The repository's base URL.
    public let repository: URL
    /// Checks and installs what is downloaded, into its store.
    public let installer: PackageInstaller
    /// How many blobs download at once.
    public var parallelDownloads: Int
    /// How long a request may wait for data before it fails (seconds).
    public var timeout: TimeInterval

    /// - Parameter repository: the repository's base URL (`https://cdn.example.com/packages/`).
    public init(repository: URL, installer: PackageInstaller, parallelDownloads: Int = 4, timeout: TimeInterval = 30) {
        self.repository = repository
        self.installer = installer
        self.parallelDownloads = max(1, parallelDownloads)
        self.timeout = timeout
    }

    /// The package ids the repository's `index.json` lists.
    public func availablePackages() async throws -> [String] {
        let downloader = PackageDownloader(digests: installer.platform.digests, timeout: timeout)
        defer { downloader.invalidate() }
        guard let data = try await downloader.document(url(PackageRepositoryLayout.index)) else { return [] }
        guard let index = try? JSONDecoder().decode(PackageRepositoryLayout.Index.self, from: data) else {
            throw HybridError.pkg(.invalidManifest("index.json is malformed"))
        }
        return index.packages.filter(PackageManifest.isValidID)
    }

    /// Updates `id` to the repository's latest version.
    /// - Throws: every ``PackageFailure`` the checks, downloads and install raise; the active
    ///   version keeps serving, and downloaded blobs stay for the next attempt.
    public func update(_ id: String, now: Date = Date(), progress: (@Sendable (Progress) -> Void)? = nil) async throws -> Report {
        guard PackageManifest.isValidID(id) else { throw HybridError.pkg(.invalidManifest("bad package id '\(id)'")) }
        let store = installer.store
        let downloader = PackageDownloader(digests: installer.platform.digests, timeout: timeout)
        defer { downloader.invalidate() }
        var report = Report(id: id, previousVersion: store.activeVersion(id), upToDate: false)
        let meter = ProgressMeter(id: id, sink: progress)
        meter.phase(.checking)

        let pointerPath = PackageRepositoryLayout.pointer(id: id)
        guard let pointerData = try await downloader.document(url(pointerPath)) else {
            throw HybridError.pkg(.httpStatus(url: url(pointerPath).absoluteString, status: 404))
        }
        let pointerSignature = try await downloader.document(url(pointerPath + PackageRepositoryLayout.signatureSuffix))
        report.documentBytes += Int64(pointerData.count + (pointerSignature?.count ?? 0))
        try DetachedSignature.verify(pointerSignature, of: pointerData, what: "pointer", with: installer.verifier)
        let pointer = try PackagePointer.decode(pointerData, expectedID: id)
        if pointer.version == store.activeVersion(id) || store.state(id).rejected.contains(pointer.version) {
            report.upToDate = true
            meter.phase(.done)
            return report
        }
        try installer.admit(id: id, version: pointer.version)

        guard let manifestData = try await downloader.document(url(pointer.manifest)) else {
            throw HybridError.pkg(.httpStatus(url: url(pointer.manifest).absoluteString, status: 404))
        }
        let manifestSignature = try await downloader.document(url(pointer.manifest + PackageRepositoryLayout.signatureSuffix))
        report.documentBytes += Int64(manifestData.count + (manifestSignature?.count ?? 0))
        guard installer.platform.digests.sha256Hex(manifestData) == pointer.manifestSHA256 else {
            throw HybridError.pkg(.invalidManifest("manifest does not match the pointer's SHA-256"))
        }
        let manifest = try installer.accept(manifest: manifestData, signature: manifestSignature, now: now)
        guard manifest.id == id, manifest.version == pointer.version else {
            throw HybridError.pkg(.invalidManifest("manifest names \(manifest.id)@\(manifest.version), pointer \(id)@\(pointer.version)"))
        }

        // One download per distinct blob the store lacks.
        var missing: [String: PackageFile] = [:]
        var present = Set<String>()
        for file in manifest.files {
            if store.hasBlob(file.sha256) { present.insert(file.sha256) } else { missing[file.sha256] = file }
        }
        report.blobsReused = present.count
        let queue = missing.values.sorted { $0.storedSize > $1.storedSize }   // big first: better overlap
        meter.expect(blobs: queue.count, bytes: queue.reduce(Int64(0)) { $0 + Int64($1.storedSize) })
        meter.phase(.downloading)
        let outcomes = try await download(queue, downloader: downloader, store: store, meter: meter)
        let fetched = outcomes.filter { !$0.value.byAnotherUpdater }
        report.blobsFetched = fetched.count
        report.blobsReused += outcomes.count - fetched.count
        report.fetchedPaths = manifest.files.filter { fetched[$0.sha256] != nil }.map(\.path.value)
        report.bytesFetched = fetched.values.reduce(0) { $0 + Int64($1.fetched) }
        report.bytesResumed = fetched.values.reduce(0) { $0 + Int64($1.resumed) }

        meter.phase(.installing)
        report.outcome = try installer.install(manifest: manifestData, signature: manifestSignature, now: now)
        meter.phase(.done)
        return report
    }

    /// Downloads `files` at most ``parallelDownloads`` at a time.
    /// - Returns: what each blob took, by file SHA-256.
    private func download(_ files: [PackageFile], downloader: PackageDownloader, store: PackageStore,
                          meter: ProgressMeter) async throws -> [String: PackageDownloader.Outcome] {
        let platform = installer.platform
        let base = self
        return try await withThrowingTaskGroup(of: (String, PackageDownloader.Outcome).self) { group in
            var next = 0
            func startNext() {
                guard next < files.count else { return }
                let file = files[next]
                next += 1
                group.addTask {
                    let outcome = try await downloader.fetch(file, from: base.url(PackageRepositoryLayout.blob(file.blob)), into: store,
                                                             platform: platform, onBytes: { meter.received($0) })
                    meter.received(outcome.resumed)
                    meter.blobDone()
                    return (file.sha256, outcome)
                }
            }
            for _ in 0..<min(parallelDownloads, files.count) { startNext() }
            // One failed blob does not stop the others: what they fetch is kept for the next attempt.
            var outcomes: [String: PackageDownloader.Outcome] = [:]
            var firstError: (any Error)?
            while let result = await group.nextResult() {
                switch result {
                case .success(let (sha256, outcome)): outcomes[sha256] = outcome
                case .failure(let error): if firstError == nil { firstError = error }
                }
                if Task.isCancelled { group.cancelAll() } else { startNext() }
            }
            if let firstError { throw firstError }
            try Task.checkCancellation()
            return outcomes
        }
    }

    func url(_ path: String) -> URL {
        let base = repository.absoluteString.hasSuffix("/") ? repository : repository.appendingPathComponent("")
        return URL(string: path, relativeTo: base)?.absoluteURL ?? base.appendingPathComponent(path)
    }
}

/// Accumulates progress from concurrent downloads and reports snapshots.
final class ProgressMeter: @unchecked Sendable {
    private let lock = NSLock()
    private var progress: PackageUpdater.Progress
    private let sink: (@Sendable (PackageUpdater.Progress) -> Void)?

    init(id: String, sink: (@Sendable (PackageUpdater.Progress) -> Void)?) {
        progress = .init(id: id, phase: .checking, blobsDone: 0, blobsTotal: 0, bytesReceived: 0, bytesExpected: 0)
        self.sink = sink
    }

    func phase(_ phase: PackageUpdater.Phase) { update { $0.phase = phase } }
    func expect(blobs: Int, bytes: Int64) { update { $0.blobsTotal = blobs; $0.bytesExpected = bytes } }
    func received(_ bytes: Int) { if bytes > 0 { update { $0.bytesReceived += Int64(bytes) } } }
    func blobDone() { update { $0.blobsDone += 1 } }

    private func update(_ change: (inout PackageUpdater.Progress) -> Void) {
        let snapshot = lock.withLock { () -> PackageUpdater.Progress in
            change(&progress)
            return progress
        }
        sink?(snapshot)
    }
}
