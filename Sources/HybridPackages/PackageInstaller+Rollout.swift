import Foundation
import HybridBase

/// The store changes a staged rollout (``PackageRollout``) makes, each under the store's lock.
extension PackageInstaller {
    /// Records that rollout document `sequence` of `id` was accepted, refusing one below the highest accepted.
    /// - Throws: ``PackageFailure/rolloutReplayed(offered:highestSeen:)`` or a write failure.
    func acceptRollout(_ id: String, sequence: Int) throws {
        try store.withLock {
            var state = store.state(id)
            if let seen = state.rolloutSequence, sequence < seen {
                throw HybridError.pkg(.rolloutReplayed(offered: sequence, highestSeen: seen))
            }
            guard state.rolloutSequence != sequence else { return }
            state.rolloutSequence = sequence
            try store.atomicWrite(try JSONEncoder().encode(state), to: store.stateURL(id))
        }
    }

    /// Blocks `version` of `id`: it is never installed or activated here again (a halted rollout's candidate).
    func block(_ id: String, version: Int) throws {
        try store.withLock {
            var state = store.state(id)
            guard !state.rejected.contains(version) else { return }
            state.rejected.append(version)
            state.highestSeen = max(state.highestSeen, version)
            try store.atomicWrite(try JSONEncoder().encode(state), to: store.stateURL(id))
        }
    }

    /// Makes `version` of `id`, which the store still keeps (the rollout's baseline), the active
    /// version again, confirmed, without a download; its files are checked first.
    /// - Returns: `false` when the store does not keep that version or a file of it is missing or damaged (nothing changed).
    func returnToKept(_ id: String, version: Int) throws -> Bool {
        try store.withLock {
            guard let record = store.activeRecord(id), record.current != version, record.keptVersions.contains(version),
                  let manifest = try? store.manifest(id, version: version), (try? verifyBlobs(of: manifest)) != nil else { return false }
            let next = PackageStore.ActiveRecord(current: version, previous: nil, confirmed: true)
            try writeActive(next, id: id, crashBeforeRename: false)
            try removeUnkeptVersions(id, record: next)
            _ = try? store.collectGarbageLocked(now: Date())
            return true
        }
    }

    /// Stops keeping a rollout's baseline for `id` (the rollout completed): its files become garbage.
    func releaseRetained(_ id: String) throws {
        guard store.activeRecord(id)?.retained != nil else { return }   // the common case, without the lock
        try store.withLock {
            guard var record = store.activeRecord(id), record.retained != nil else { return }
            record.retained = nil
            try writeActive(record, id: id, crashBeforeRename: false)
            try removeUnkeptVersions(id, record: record)
            _ = try? store.collectGarbageLocked(now: Date())
        }
    }
}
