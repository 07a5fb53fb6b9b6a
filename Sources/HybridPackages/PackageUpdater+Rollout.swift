import Foundation
import HybridBase

extension PackageUpdater {
    /// What a package's staged rollout (``PackageRollout``) decided for this install.
    public struct RolloutDecision: Sendable, Equatable {
        /// The rollout document's sequence.
        public var sequence: Int
        /// Where the rollout is.
        public var state: PackageRollout.State
        /// The percentage of install buckets the candidate reaches now.
        public var percent: Double
        /// Whether this install is inside the rollout (its bucket is below ``percent``).
        public var inside: Bool
        /// The version this install should run: the candidate inside the rollout, the baseline outside
        /// it (or when the candidate is blocked here).
        public var target: Int
        /// `true` when the install went back to the baseline the store kept, without a download.
        public var returnedToKept = false
    }

    /// What following a rollout asks of the updater.
    enum RolloutAction: Sendable {
        /// The install already runs what it should.
        case stay
        /// The install went back to the kept baseline (done, no download).
        case returned
        /// Install the version `pointer` names, keeping `retaining`; `downgrade` admits a version below the active one.
        case install(PackagePointer, retaining: Int?, downgrade: Bool)
    }

    /// Fetches and verifies `id`'s rollout document, refusing a replayed older one.
    /// - Returns: `nil` when the repository has none (404).
    /// - Throws: ``PackageFailure/missingSignature(_:)``, ``PackageFailure/badSignature(_:)`` and the key failures,
    ///   ``PackageFailure/invalidRollout(_:)``, ``PackageFailure/rolloutReplayed(offered:highestSeen:)``, download failures.
    func fetchRollout(_ id: String, downloader: PackageDownloader, report: inout Report, now: Date) async throws -> PackageRollout? {
        let path = PackageRepositoryLayout.rollout(id: id)
        guard let data = try await signedDocument(path, what: "rollout", limit: 1 << 20, signatureLimit: 4096, downloader: downloader,
                                                  report: &report, now: now) else { return nil }
        let rollout = try PackageRollout.decode(data, expectedID: id)
        try installer.acceptRollout(id, sequence: rollout.sequence)
        // Blocked here for good, even once a newer version supersedes the rollout.
        if rollout.state == .halted { try installer.block(id, version: rollout.candidate.version) }
        return rollout
    }

    /// Fetches the short-lived document at `path` (a pointer, a rollout document) and its detached
    /// signature, verified; `nil` when the repository has no document there (404). A CDN caches the
    /// two apart, so until their max-age runs out an edge can pair a new document with the old
    /// signature: a pair that does not verify is fetched once more past the edge's copies
    /// (`Cache-Control: no-cache`) before the refusal stands.
    /// - Throws: ``PackageFailure/missingSignature(_:)``, ``PackageFailure/badSignature(_:)`` and the key failures, download failures.
    func signedDocument(_ path: String, what: String, limit: Int = PackageDownloader.documentLimit,
                        signatureLimit: Int = PackageDownloader.documentLimit, downloader: PackageDownloader,
                        report: inout Report, now: Date) async throws -> Data? {
        var revalidating = false
        while true {
            guard let data = try await downloader.document(url(path), limit: limit, revalidating: revalidating) else { return nil }
            let signature = try await downloader.document(url(path + PackageRepositoryLayout.signatureSuffix), limit: signatureLimit,
                                                          revalidating: revalidating)
            report.documentBytes += Int64(data.count + (signature?.count ?? 0))
            try await catchUpKeyRotations(announcedIn: data, downloader: downloader, report: &report)
            do {
                try DetachedSignature.verify(signature, of: data, what: what, with: installer.verifier, at: now)
                return data
            } catch let error as HybridError where !revalidating && ["bad_signature", "missing_signature"].contains(error.code) {
                revalidating = true
            }
        }
    }

    /// Decides, and does the store-only part of, what `rollout` means for the install `installID`.
    func followRollout(_ rollout: PackageRollout, installID: String) throws -> (decision: RolloutDecision, action: RolloutAction) {
        let id = rollout.id
        let candidate = rollout.candidate.version, baseline = rollout.baseline.version
        let store = installer.store
        let inside = rollout.includes(installID: installID)
        let blocked = store.state(id).rejected.contains(candidate)
        var decision = RolloutDecision(sequence: rollout.sequence, state: rollout.state, percent: rollout.percent, inside: inside,
                                       target: inside && !blocked ? candidate : baseline)
        let active = store.activeVersion(id)
        if decision.target == candidate {
            if rollout.state == .completed { try installer.releaseRetained(id) }
            if let active, active >= candidate { return (decision, .stay) }
            return (decision, .install(rollout.candidate, retaining: rollout.state == .running ? baseline : nil, downgrade: false))
        }
        guard let active, active != baseline else {
            return (decision, active == nil ? .install(rollout.baseline, retaining: nil, downgrade: false) : .stay)
        }
        if active < baseline { return (decision, .install(rollout.baseline, retaining: nil, downgrade: false)) }
        // Above the baseline: leave a newer release alone; move off the candidate, from the store when it kept the baseline.
        guard active == candidate else { return (decision, .stay) }
        if try installer.returnToKept(id, version: baseline) {
            decision.returnedToKept = true
            return (decision, .returned)
        }
        return (decision, .install(rollout.baseline, retaining: nil, downgrade: true))
    }
}
