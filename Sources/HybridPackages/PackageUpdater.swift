import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridBase
import HybridHTTP
import HybridHealth

/// Brings packages in a ``PackageStore`` up to date from a static repository over HTTP.
///
/// Fetches the signed pointer and manifest (its compressed copy when the pointer names one);
/// refuses a bad or missing signature, a version below the highest ever seen, or an expired
/// manifest; then gets each file the store lacks the cheapest way that works (``Way``): already
/// installed → a byte-level patch from a base the store holds (``DeltaPatch``, when the platform
/// has a ``DeltaCodec``) → the full blob, streamed through SHA-256 and size checks and resumed
/// with `Range` when an earlier attempt was cut off. Any failure of a way falls back to the next
/// and never leaves a partial file. Finally hands the version to the ``PackageInstaller``. Any
/// failure leaves the active version serving.
///
/// With an ``installID``, the package's staged rollout (``PackageRollout``, beside the pointer)
/// decides which version this install runs until a version newer than its candidate is packed:
/// the candidate inside the install's bucket, the baseline outside it; a halted rollout blocks
/// the candidate and moves an install on it back to the baseline the store kept, without a download.
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

    /// How a file of the new version was obtained, cheapest first.
    public enum Way: String, Sendable, Codable {
        /// The store already held the file's bytes (unchanged, or shared with another version).
        case installed
        /// A byte-level patch from a base the store held, checked against the manifest's SHA-256.
        case patch
        /// The full blob.
        case full
    }

    /// How one file of the new version was obtained.
    public struct FileReport: Sendable, Equatable {
        /// The file's path in the package.
        public var path: String
        /// The way that delivered it.
        public var way: Way
        /// Bytes fetched for it, failed attempts included (0 for a file shared with another path).
        public var bytesFetched: Int64
        /// The full blob's stored size: what a file-level update fetches for it.
        public var fullBytes: Int64
        /// The base (SHA-256) of the patch that delivered it, when ``way`` is ``Way/patch``.
        public var patchBase: String?
        /// Why cheaper ways were given up (`bad_patch: …`, `missing_blob: …`), in the order tried.
        public var fallbacks: [String] = []
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
        /// Full blobs downloaded by this update.
        public var blobsFetched = 0
        /// Files made by applying a byte-level patch.
        public var patchesApplied = 0
        /// Blobs the store already held (shared with other versions or packages).
        public var blobsReused = 0
        /// Blob and patch bytes fetched over the network (stored form), failed attempts included.
        public var bytesFetched: Int64 = 0
        /// Blob bytes a resumed download did not fetch again.
        public var bytesResumed: Int64 = 0
        /// Bytes of pointer, manifest and signatures.
        public var documentBytes: Int64 = 0
        /// Paths of the files whose blob or patch was fetched, sorted.
        public var fetchedPaths: [String] = []
        /// The way each file of the new version took, sorted by path.
        public var files: [FileReport] = []
        /// What a full update (every blob of the version, no patches) would have transferred, documents included.
        public var fullUpdateBytes: Int64 = 0
        /// What a file-level update (the blobs the store lacked, no patches) would have transferred, documents included.
        public var fileLevelBytes: Int64 = 0
        /// Wall-clock time of the update, from the pointer request to activation (seconds).
        public var duration: TimeInterval = 0
        /// What the package's staged rollout decided for this install, when the updater followed one (``installID`` set
        /// and the repository has a rollout document for the package).
        public var rollout: RolloutDecision?

        /// Everything this update transferred: blobs and patches plus documents.
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
    /// The overall and stall deadlines of every document download (pointer, manifest, signatures,
    /// patches, rotation statements, index); ``DownloadDeadlines/standard`` (120 s, 20 s) by default.
    public var deadlines: DownloadDeadlines

    /// Where each update's outcome is recorded (docs/health.md): an ``HealthEvent/Kind/update(way:bytes:milliseconds:)``
    /// per call of ``update(_:now:progress:)``, way `none`, `patch`, `files` or `full`, and `failed`
    /// when it threw; `nil` (the default) records nothing.
    public var health: HealthRecorder?
    /// The engine name the recorded events carry (`webkit` or `blink`).
    public var healthEngine: String
    /// This install's stable id (`RemoteConfigCache.installID()`). With it the updater follows the
    /// package's staged rollout (``PackageRollout``) when the repository has one; without it, or
    /// when there is none, it follows the pointer (`latest.json`), which names the rollout's baseline.
    public var installID: String?

    /// - Parameters:
    ///   - repository: the repository's base URL (`https://cdn.example.com/packages/`).
    ///   - installID: the install's stable id, to follow staged rollouts (``installID``).
    public init(repository: URL, installer: PackageInstaller, parallelDownloads: Int = 4, timeout: TimeInterval = 30,
                deadlines: DownloadDeadlines = .standard, health: HealthRecorder? = nil, healthEngine: String = "",
                installID: String? = nil) {
        self.installID = installID
        self.deadlines = deadlines
        self.repository = repository
        self.installer = installer
        self.parallelDownloads = max(1, parallelDownloads)
        self.timeout = timeout
        self.health = health
        self.healthEngine = healthEngine
    }

    /// The package ids the repository's `index.json` lists.
    public func availablePackages() async throws -> [String] {
        let downloader = PackageDownloader(digests: installer.platform.digests, timeout: timeout, deadlines: deadlines)
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
        var target: Int?
        guard let health else { return try await performUpdate(id, now: now, progress: progress, target: &target) }
        let started = Date()
        do {
            let report = try await performUpdate(id, now: now, progress: progress, target: &target)
            health.record(HealthEvent(update: report, engine: healthEngine))
            return report
        } catch {
            // Under the version it failed to install, when known: a candidate's failed updates are its own.
            let context = HealthContext(packageID: id, packageVersion: target ?? installer.store.activeVersion(id), engine: healthEngine)
            health.record(HealthEvent(.update(way: "failed", bytes: 0, milliseconds: Date().timeIntervalSince(started) * 1000),
                                      context: context))
            throw error
        }
    }

    private func performUpdate(_ id: String, now: Date, progress: (@Sendable (Progress) -> Void)?, target: inout Int?) async throws -> Report {
        guard PackageManifest.isValidID(id) else { throw HybridError.pkg(.invalidManifest("bad package id '\(id)'")) }
        let store = installer.store
        let started = Date()
        let downloader = PackageDownloader(digests: installer.platform.digests, timeout: timeout, deadlines: deadlines)
        var report = Report(id: id, previousVersion: store.activeVersion(id), upToDate: false)
        let meter = ProgressMeter(id: id, sink: progress)
        meter.phase(.checking)

        let pointerPath = PackageRepositoryLayout.pointer(id: id)
        guard let pointerData = try await signedDocument(pointerPath, what: "pointer", downloader: downloader, report: &report, now: now) else {
            throw HybridError.pkg(.httpStatus(url: url(pointerPath).absoluteString, status: 404))
        }
        let pointer = try PackagePointer.decode(pointerData, expectedID: id)
        // A rollout governs until a newer version is packed: the pointer then names it.
        if let installID, let rollout = try await fetchRollout(id, downloader: downloader, report: &report, now: now),
           rollout.candidate.version >= pointer.version {
            let step = try followRollout(rollout, installID: installID)
            report.rollout = step.decision
            target = step.decision.target
            switch step.action {
            case .stay:
                report.upToDate = true
            case .returned:
                report.outcome = .installed(version: step.decision.target, previous: nil)   // the candidate is blocked, not kept
            case .install(let pointer, let retaining, let downgrade):
                return try await install(pointer, retaining: retaining, allowingDowngrade: downgrade, downloader: downloader,
                                         report: report, meter: meter, now: now, started: started)
            }
            report.duration = Date().timeIntervalSince(started)
            meter.phase(.done)
            return report
        }
        if pointer.version == store.activeVersion(id) {
            try installer.releaseRetained(id)   // the pointer itself names it: no rollout can send this install back
        }
        target = pointer.version
        return try await install(pointer, retaining: nil, allowingDowngrade: false, downloader: downloader, report: report,
                                 meter: meter, now: now, started: started)
    }

    /// Installs the version `pointer` names (signature already checked), unless it is active or rejected here.
    private func install(_ pointer: PackagePointer, retaining: Int?, allowingDowngrade: Bool, downloader: PackageDownloader,
                         report: Report, meter: ProgressMeter, now: Date, started: Date) async throws -> Report {
        var report = report
        let id = pointer.id
        let store = installer.store
        if pointer.version == store.activeVersion(id) || store.state(id).rejected.contains(pointer.version) {
            report.upToDate = true
            report.duration = Date().timeIntervalSince(started)
            meter.phase(.done)
            return report
        }
        try installer.admit(id: id, version: pointer.version, allowingDowngrade: allowingDowngrade)

        let manifestData = try await fetchManifest(pointer, downloader: downloader, report: &report)
        let manifestSignature = try await downloader.document(url(pointer.manifest + PackageRepositoryLayout.signatureSuffix))
        report.documentBytes += Int64(manifestSignature?.count ?? 0)
        guard installer.platform.digests.sha256Hex(manifestData) == pointer.manifestSHA256 else {
            throw HybridError.pkg(.invalidManifest("manifest does not match the pointer's SHA-256"))
        }
        let manifest = try installer.accept(manifest: manifestData, signature: manifestSignature, now: now, allowingDowngrade: allowingDowngrade)
        guard manifest.id == id, manifest.version == pointer.version else {
            throw HybridError.pkg(.invalidManifest("manifest names \(manifest.id)@\(manifest.version), pointer \(id)@\(pointer.version)"))
        }

        // One fetch per distinct file the store lacks.
        var missing: [String: PackageFile] = [:]
        var present = Set<String>()
        var distinct: [String: Int64] = [:]
        for file in manifest.files {
            distinct[file.sha256] = Int64(file.storedSize)
            if store.hasBlob(file.sha256) { present.insert(file.sha256) } else { missing[file.sha256] = file }
        }
        report.blobsReused = present.count
        report.fullUpdateBytes = report.documentBytes + distinct.values.reduce(0, +)
        report.fileLevelBytes = report.documentBytes + missing.values.reduce(0) { $0 + Int64($1.storedSize) }
        let queue = missing.values.sorted { $0.storedSize > $1.storedSize }   // big first: better overlap
        meter.expect(blobs: queue.count, bytes: queue.reduce(Int64(0)) { $0 + Int64(cheapestSize(of: $1, store: store)) })
        meter.phase(.downloading)
        let outcomes = try await download(queue, downloader: downloader, store: store, meter: meter)
        let fetched = outcomes.filter { !$0.value.byAnotherUpdater }
        report.blobsFetched = fetched.values.filter { $0.way == .full }.count
        report.patchesApplied = fetched.values.filter { $0.way == .patch }.count
        report.blobsReused += outcomes.count - fetched.count
        report.fetchedPaths = manifest.files.filter { fetched[$0.sha256] != nil }.map(\.path.value)
        report.bytesFetched = fetched.values.reduce(0) { $0 + Int64($1.fetched) }
        report.bytesResumed = fetched.values.reduce(0) { $0 + Int64($1.resumed) }
        var reported = Set<String>()
        report.files = manifest.files.map { file in
            let full = Int64(file.storedSize)
            guard let outcome = outcomes[file.sha256], !outcome.byAnotherUpdater else {
                return FileReport(path: file.path.value, way: .installed, bytesFetched: 0, fullBytes: full)
            }
            let first = reported.insert(file.sha256).inserted
            return FileReport(path: file.path.value, way: outcome.way, bytesFetched: first ? Int64(outcome.fetched) : 0, fullBytes: full,
                              patchBase: outcome.patchBase, fallbacks: outcome.fallbacks)
        }

        meter.phase(.installing)
        report.outcome = try installer.install(manifest: manifestData, signature: manifestSignature, now: now,
                                               retaining: retaining, allowingDowngrade: allowingDowngrade)
        report.duration = Date().timeIntervalSince(started)
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
                    // The cheaper way first; what a failed patch fetched still counts.
                    let patched = await base.fetchByPatch(file, downloader: downloader, store: store, meter: meter)
                    if var outcome = patched.outcome {
                        outcome.fetched += patched.spent
                        meter.blobDone()
                        return (file.sha256, outcome)
                    }
                    var outcome = try await downloader.fetch(file, from: base.url(PackageRepositoryLayout.blob(file.blob)), into: store,
                                                             platform: platform, onBytes: { meter.received($0) })
                    outcome.fetched += patched.spent
                    outcome.fallbacks = patched.fallbacks
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

    package func url(_ path: String) -> URL {
        let base = repository.absoluteString.hasSuffix("/") ? repository : repository.appendingPathComponent("")
        return URL(string: path, relativeTo: base)?.absoluteURL ?? base.appendingPathComponent(path)
    }
}

/// Accumulates progress from concurrent downloads and reports snapshots.
final class ProgressMeter: @unchecked Sendable {
    private let lock = NSLock()
    private var progress: PackageUpdater.Progress
    private let sink: (@Sendable (PackageUpdater.Progress) -> Void)?

    package init(id: String, sink: (@Sendable (PackageUpdater.Progress) -> Void)?) {
        progress = .init(id: id, phase: .checking, blobsDone: 0, blobsTotal: 0, bytesReceived: 0, bytesExpected: 0)
        self.sink = sink
    }

    package func phase(_ phase: PackageUpdater.Phase) { update { $0.phase = phase } }
    package func expect(blobs: Int, bytes: Int64) { update { $0.blobsTotal = blobs; $0.bytesExpected = bytes } }
    package func received(_ bytes: Int) { if bytes > 0 { update { $0.bytesReceived += Int64(bytes) } } }
    func blobDone() { update { $0.blobsDone += 1 } }

    private func update(_ change: (inout PackageUpdater.Progress) -> Void) {
        let snapshot = lock.withLock { () -> PackageUpdater.Progress in
            change(&progress)
            return progress
        }
        sink?(snapshot)
    }
}
