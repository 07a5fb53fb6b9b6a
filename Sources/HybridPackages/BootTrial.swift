import Foundation

/// The persistent side of boot health (``BootHealthPolicy``): counts the launches of a package
/// version on trial, confirms it when it proves healthy, and rolls it back when it fails.
///
/// The trial record lives beside `active.json` (`STORE/packages/ID/trial.json`) and every change
/// is an atomic, fsynced rename under the store's lock. A launch is counted *before* its page
/// loads, and a failure is recorded before the rollback it causes, so a process killed at any
/// point has either counted the launch or not started it, and a rollback it began is finished by
/// the next launch (``Step``).
///
/// ```swift
/// let trial = BootTrial(installer: installer, policy: BootHealthPolicy())
/// switch try trial.beginLaunch("shop") {         // before loading the package's page
/// case .trial(let version, _): startTimer(version)  // on ready: try trial.confirm("shop", version: version)
/// case .rolledBack(let rollback): tell(rollback)    // the last good version serves; load it
/// case .confirmed, .notInstalled: break
/// }
/// ```
public struct BootTrial: Sendable {
    /// The points between writes where a test injects a kill (``PackageFaults/crash(at:)-(BootTrial.Step)``).
    public enum Step: String, Sendable, CaseIterable {
        /// ``BootTrial/beginLaunch(_:)`` wrote the incremented launch count.
        case launchCounted = "trial_launch_counted"
        /// ``BootTrial/fail(_:version:reason:)`` recorded the failure, before rolling back.
        case failureRecorded = "trial_failure_recorded"
        /// The rollback is done; the trial record is not yet removed.
        case rolledBack = "trial_rolled_back"
        /// ``BootTrial/confirm(_:version:)`` confirmed the version; the trial record is not yet removed.
        case confirmed = "trial_confirmed"
    }

    /// What the store remembers about the version on trial.
    public struct Record: Codable, Sendable, Equatable {
        /// The version on trial.
        public var version: Int
        /// Launches counted so far, the one starting now included.
        public var launches: Int
        /// Set when the version failed and its rollback began; the next launch finishes it.
        public var failure: BootFailure?
    }

    /// What a launch of the package's page is.
    public enum Launch: Sendable, Equatable {
        /// The active version is confirmed: no trial.
        case confirmed(version: Int)
        /// The active version is on trial; this is its `launch`-th launch (1-based), already counted.
        case trial(version: Int, launch: Int)
        /// The version on trial had failed or used all its launches: it was rolled back before this
        /// launch loaded it, and the last confirmed version serves.
        case rolledBack(PackageRollback)
        /// No version of the package is installed.
        case notInstalled
    }

    /// The installer whose store holds the package.
    public let installer: PackageInstaller
    /// The trial's limits (``BootHealthPolicy/maxTrialLaunches``).
    public let policy: BootHealthPolicy

    /// Trials of `installer`'s packages under `policy`.
    public init(installer: PackageInstaller, policy: BootHealthPolicy = BootHealthPolicy()) {
        self.installer = installer
        self.policy = policy
    }

    private var store: PackageStore { installer.store }

    /// The trial record of `id`, if a version is on trial.
    public func record(_ id: String) -> Record? {
        guard PackageManifest.isValidID(id), let data = FileManager.default.contents(atPath: trialURL(id).path) else { return nil }
        return try? JSONDecoder().decode(Record.self, from: data)
    }

    /// Starts a launch of `id`'s page; call it before the page loads. Counts the launch of an
    /// unconfirmed version, or, when that version already failed or used its
    /// ``BootHealthPolicy/maxTrialLaunches``, rolls it back first (blocking it).
    ///
    /// A version with nothing to roll back to (the first one installed) stays on trial: it keeps
    /// serving, since there is nothing better, and is confirmed if it ever signals health.
    /// - Throws: store write failures (the launch may then not have been counted).
    public func beginLaunch(_ id: String) throws -> Launch {
        try store.withLock {
            guard let active = store.activeRecord(id) else { return .notInstalled }
            if active.confirmed {
                let leftover = record(id)
                removeRecord(id)
                // Killed after a rollback and before its record was removed: report it now.
                if let leftover, let reason = leftover.failure, leftover.version != active.current {
                    return .rolledBack(PackageRollback(id: id, from: leftover.version, to: active.current, reason: reason))
                }
                return .confirmed(version: active.current)
            }
            var trial = record(id).flatMap { $0.version == active.current ? $0 : nil }
                ?? Record(version: active.current, launches: 0, failure: nil)
            if let previous = active.previous {
                let reason = trial.failure
                    ?? (trial.launches >= policy.maxTrialLaunches ? .launchesExhausted(launches: trial.launches) : nil)
                if let reason {
                    return .rolledBack(try rollBackLocked(id, trial: trial, to: previous, reason: reason))
                }
            }
            trial.launches += 1
            try writeRecord(trial, id: id)
            try store.config.faults?.checkpoint(Step.launchCounted)
            return .trial(version: trial.version, launch: trial.launches)
        }
    }

    /// Confirms `version` of `id` as healthy: the previous version is released and the version is
    /// never rolled back by boot health again.
    /// - Returns: `false` when `version` is no longer the active one (nothing changed).
    /// - Throws: store write failures.
    @discardableResult
    public func confirm(_ id: String, version: Int) throws -> Bool {
        try store.withLock {
            guard let active = store.activeRecord(id), active.current == version else { return false }
            if record(id)?.failure != nil, !active.confirmed { return false }   // its rollback has begun
            try installer.markLoadedLocked(id)
            try store.config.faults?.checkpoint(Step.confirmed)
            removeRecord(id)
            return true
        }
    }

    /// Rolls `version` of `id` back because it failed on trial, blocking it; the last confirmed
    /// version serves. Nothing happens after the version was confirmed (never roll back after
    /// ready), when another version is active by now, or when there is nothing to roll back to.
    /// - Returns: the rollback, or `nil` when nothing was rolled back.
    /// - Throws: store write failures; the failure is recorded first, so the next
    ///   ``beginLaunch(_:)`` finishes the rollback.
    @discardableResult
    public func fail(_ id: String, version: Int, reason: BootFailure) throws -> PackageRollback? {
        try store.withLock {
            guard let active = store.activeRecord(id), active.current == version, !active.confirmed,
                  let previous = active.previous else { return nil }
            var trial = record(id).flatMap { $0.version == version ? $0 : nil } ?? Record(version: version, launches: 1, failure: nil)
            if trial.failure == nil {
                trial.failure = reason
                try writeRecord(trial, id: id)
            }
            try store.config.faults?.checkpoint(Step.failureRecorded)
            return try rollBackLocked(id, trial: trial, to: previous, reason: trial.failure ?? reason)
        }
    }

    // MARK: Internals (called with the lock held)

    private func rollBackLocked(_ id: String, trial: Record, to previous: Int, reason: BootFailure) throws -> PackageRollback {
        let restored = try installer.rollbackLocked(id, rejecting: true)
        try store.config.faults?.checkpoint(Step.rolledBack)
        removeRecord(id)
        return PackageRollback(id: id, from: trial.version, to: restored, reason: reason)
    }

    private func trialURL(_ id: String) -> URL { store.packageDirectory(id).appendingPathComponent("trial.json") }

    private func writeRecord(_ record: Record, id: String) throws {
        try store.atomicWrite(try JSONEncoder().encode(record), to: trialURL(id))
    }

    private func removeRecord(_ id: String) {
        try? FileManager.default.removeItem(at: trialURL(id))
    }
}
