import Foundation
import HybridBase

/// Installs verified package versions into a ``PackageStore``: stage → verify → activate by
/// `rename`, keeping the previous version until the new one has loaded once.
///
/// Every step runs under the store's file lock, and the only write that changes what serves is
/// the atomic rename of `active.json`, so a process killed at any ``Step`` leaves the previously
/// active version serving; the next installer on the store removes the leftovers (``recover(_:)``).
public struct PackageInstaller: Sendable {
    /// The steps of an install, in order; tests inject a crash at each (``PackageFaults``).
    public enum Step: String, Sendable, CaseIterable {
        /// The staging directory exists and is empty.
        case stagingCreated = "staging_created"
        /// The manifest and its signature are written into staging.
        case manifestStaged = "manifest_staged"
        /// Every referenced blob is present with the right size and SHA-256.
        case blobsVerified = "blobs_verified"
        /// Staging was renamed to `versions/N`.
        case versionPlaced = "version_placed"
        /// The new `active.json` is written to a temporary file, not yet renamed.
        case pointerWritten = "pointer_written"
        /// `active.json` now names the new version.
        case activated = "activated"
    }

    /// What an install did.
    public enum Outcome: Sendable, Equatable {
        /// The version now serves; `previous` is kept for rollback.
        case installed(version: Int, previous: Int?)
        /// This version was already active: nothing changed.
        case alreadyActive(version: Int)
    }

    /// The store versions are installed into.
    public let store: PackageStore
    /// The digests and decompressor used to check blobs.
    public let platform: PackagePlatform
    /// Checks manifest signatures; every install verifies them again, right before staging.
    public let verifier: any SignatureVerifier

    /// An installer into `store` that checks manifests with `verifier`.
    public init(store: PackageStore, platform: PackagePlatform, verifier: any SignatureVerifier) {
        self.store = store
        self.platform = platform
        self.verifier = verifier
    }

    /// Checks that `version` of `id` may be installed here (not below the highest seen, not rejected).
    /// - Throws: ``PackageFailure/versionRollback(offered:highestSeen:)`` or ``PackageFailure/versionRejected(_:)``.
    public func admit(id: String, version: Int) throws {
        try admit(id: id, version: version, allowingDowngrade: false)
    }

    /// ``admit(id:version:)``; with `allowingDowngrade`, a version below the highest seen or the
    /// active one is admitted (a signed, fresh ``PackageRollout`` named it as its baseline), a rejected one still not.
    func admit(id: String, version: Int, allowingDowngrade: Bool) throws {
        let state = store.state(id)
        if !allowingDowngrade {
            if version < state.highestSeen { throw HybridError.pkg(.versionRollback(offered: version, highestSeen: state.highestSeen)) }
            if let active = store.activeVersion(id), version < active {
                throw HybridError.pkg(.versionRollback(offered: version, highestSeen: active))
            }
        }
        if state.rejected.contains(version) { throw HybridError.pkg(.versionRejected(version)) }
    }

    /// Verifies and decodes signed manifest bytes, refusing expired or inadmissible ones, and
    /// records the version as seen so that older manifests are refused from now on.
    /// - Throws: signature, manifest, expiry and version failures.
    public func accept(manifest data: Data, signature: Data?, now: Date = Date()) throws -> PackageManifest {
        try accept(manifest: data, signature: signature, now: now, allowingDowngrade: false)
    }

    func accept(manifest data: Data, signature: Data?, now: Date, allowingDowngrade: Bool) throws -> PackageManifest {
        try DetachedSignature.verify(signature, of: data, what: "manifest", with: verifier, at: now)
        let manifest = try PackageManifest.decode(data)
        guard manifest.expires > now else {
            throw HybridError.pkg(.expired(id: manifest.id, version: manifest.version, expires: manifest.expires))
        }
        try store.withLock {
            try admit(id: manifest.id, version: manifest.version, allowingDowngrade: allowingDowngrade)
            var state = store.state(manifest.id)
            if manifest.version > state.highestSeen {
                state.highestSeen = manifest.version
                try store.atomicWrite(try JSONEncoder().encode(state), to: store.stateURL(manifest.id))
            }
        }
        return manifest
    }

    /// Installs a version whose blobs are already in the store, and activates it.
    /// - Parameters:
    ///   - data: the manifest's exact signed bytes.
    ///   - signature: the `.sig` file's bytes.
    /// - Throws: every failure of ``accept(manifest:signature:now:)``, ``PackageFailure/missingBlob(_:)``,
    ///   ``PackageFailure/corruptBlob(sha256:reason:)``, write failures and injected crashes.
    @discardableResult
    public func install(manifest data: Data, signature: Data?, now: Date = Date()) throws -> Outcome {
        try install(manifest: data, signature: signature, now: now, retaining: nil, allowingDowngrade: false)
    }

    /// ``install(manifest:signature:now:)`` for a staged rollout (``PackageRollout``): `retaining`
    /// is the baseline to keep in the store while the installed candidate is on it (when the store
    /// holds it), `allowingDowngrade` admits the baseline below the version active or seen.
    func install(manifest data: Data, signature: Data?, now: Date, retaining: Int?, allowingDowngrade: Bool) throws -> Outcome {
        let manifest = try accept(manifest: data, signature: signature, now: now, allowingDowngrade: allowingDowngrade)
        let id = manifest.id
        return try store.withLock {
            try recoverLocked(id)
            try admit(id: id, version: manifest.version, allowingDowngrade: allowingDowngrade)
            let record = store.activeRecord(id)
            if record?.current == manifest.version { return .alreadyActive(version: manifest.version) }

            let staging = store.stagingDirectory(id).appendingPathComponent("\(manifest.version)-\(UUID().uuidString)")
            try store.createDirectory(staging)
            try store.config.faults?.checkpoint(.stagingCreated)
            try store.atomicWrite(data, to: staging.appendingPathComponent("manifest.json"))
            try store.atomicWrite(signature ?? Data(), to: staging.appendingPathComponent("manifest.json.sig"))
            try store.config.faults?.checkpoint(.manifestStaged)
            do {
                try verifyBlobs(of: manifest)
            } catch {
                try? FileManager.default.removeItem(at: staging)
                throw error
            }
            try store.config.faults?.checkpoint(.blobsVerified)
            let destination = store.versionDirectory(id, manifest.version)
            try? FileManager.default.removeItem(at: destination)
            try store.createDirectory(store.versionsDirectory(id))
            try store.rename(staging, to: destination)
            try? FileManager.default.removeItem(at: store.stagingDirectory(id))   // empty now; we hold the lock
            try store.config.faults?.checkpoint(.versionPlaced)

            // Keep the last version known to load: if the current one never loaded, its own
            // previous stays the rollback target.
            // A rollout's baseline installed below a blocked candidate has nothing to go back to.
            let previous = allowingDowngrade ? nil : record.map { $0.confirmed ? $0.current : ($0.previous ?? $0.current) }
            let retained = retaining.flatMap { record?.keptVersions.contains($0) == true ? $0 : nil }
            let next = PackageStore.ActiveRecord(current: manifest.version, previous: previous, confirmed: false, retained: retained)
            try writeActive(next, id: id, crashBeforeRename: true)
            try store.config.faults?.checkpoint(.activated)
            try removeUnkeptVersions(id, record: next)
            _ = try? store.collectGarbageLocked(now: now)
            return .installed(version: manifest.version, previous: previous)
        }
    }

    /// Records that the active version loaded successfully once: the previous version is released.
    /// - Throws: ``PackageFailure/notInstalled(_:)`` or a write failure.
    public func markLoaded(_ id: String) throws {
        try store.withLock { try markLoadedLocked(id) }
    }

    /// Goes back to the previous version because the active one failed to load; the failed
    /// version is remembered as rejected and never installed again.
    /// - Parameter rejecting: `false` when the version is not at fault (its files were damaged on
    ///   this device, ``PackageIntegrity``): a later update may install it again.
    /// - Returns: the version now active.
    /// - Throws: ``PackageFailure/noPreviousVersion(_:)`` or a write failure.
    @discardableResult
    public func rollback(_ id: String, rejecting: Bool = true) throws -> Int {
        try store.withLock { try rollbackLocked(id, rejecting: rejecting) }
    }

    /// Removes what an interrupted install left behind for `id`: staging, temporary files and
    /// versions placed but never activated. The active version is never touched.
    public func recover(_ id: String) throws {
        try store.withLock { try recoverLocked(id) }
    }

    // MARK: Internals (called with the lock held)

    func markLoadedLocked(_ id: String) throws {
        guard var record = store.activeRecord(id) else { throw HybridError.pkg(.notInstalled(id)) }
        guard !record.confirmed || record.previous != nil else { return }
        record.confirmed = true
        record.previous = nil
        try writeActive(record, id: id, crashBeforeRename: false)
        try removeUnkeptVersions(id, record: record)
        _ = try? store.collectGarbageLocked(now: Date())
    }

    func rollbackLocked(_ id: String, rejecting: Bool) throws -> Int {
        guard let record = store.activeRecord(id) else { throw HybridError.pkg(.notInstalled(id)) }
        guard let previous = record.previous else { throw HybridError.pkg(.noPreviousVersion(id)) }
        var state = store.state(id)
        if rejecting, !state.rejected.contains(record.current) { state.rejected.append(record.current) }
        state.highestSeen = max(state.highestSeen, record.current)
        try store.atomicWrite(try JSONEncoder().encode(state), to: store.stateURL(id))
        let next = PackageStore.ActiveRecord(current: previous, previous: nil, confirmed: true,
                                             retained: record.retained == previous ? nil : record.retained)
        try writeActive(next, id: id, crashBeforeRename: false)
        try removeUnkeptVersions(id, record: next)
        _ = try? store.collectGarbageLocked(now: Date())
        return previous
    }

    func recoverLocked(_ id: String) throws {
        let fm = FileManager.default
        try? fm.removeItem(at: store.stagingDirectory(id))
        let packageDirectory = store.packageDirectory(id)
        for name in (try? fm.contentsOfDirectory(atPath: packageDirectory.path)) ?? [] where name.contains(".tmp-") {
            try? fm.removeItem(at: packageDirectory.appendingPathComponent(name))
        }
        if let record = store.activeRecord(id) {
            try removeUnkeptVersions(id, record: record)
        } else {
            try? fm.removeItem(at: store.versionsDirectory(id))
        }
    }

    func writeActive(_ record: PackageStore.ActiveRecord, id: String, crashBeforeRename: Bool) throws {
        let url = store.activeURL(id)
        let temporary = try store.writeTemporary(try JSONEncoder().encode(record), for: url)
        if crashBeforeRename { try store.config.faults?.checkpoint(.pointerWritten) }
        try store.rename(temporary, to: url)
    }

    func removeUnkeptVersions(_ id: String, record: PackageStore.ActiveRecord) throws {
        let keep = record.keptVersions
        let versions = store.versionsDirectory(id)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: versions.path)) ?? [] {
            guard let version = Int(name), keep.contains(version) else {
                try? FileManager.default.removeItem(at: versions.appendingPathComponent(name))
                continue
            }
        }
    }

    /// Re-hashes every blob the manifest references; a corrupt one is deleted so the next update fetches it again.
    func verifyBlobs(of manifest: PackageManifest) throws {
        var checked = Set<String>()
        for file in manifest.files where checked.insert(file.sha256).inserted {
            let url = store.blobURL(file.sha256)
            guard let handle = try? FileHandle(forReadingFrom: url) else { throw HybridError.pkg(.missingBlob(file.sha256)) }
            defer { try? handle.close() }
            var digest = platform.digests.makeSHA256()
            var size = 0
            while let chunk = try? handle.read(upToCount: 1 << 16), !chunk.isEmpty {
                size += chunk.count
                digest.update(chunk)
            }
            let actual = digest.finalize().lowercaseHex
            guard size == file.size, actual == file.sha256 else {
                try? FileManager.default.removeItem(at: url)
                throw HybridError.pkg(.corruptBlob(sha256: file.sha256, reason: size == file.size ? "SHA-256 is \(actual)" : "size is \(size), expected \(file.size)"))
            }
        }
    }
}
