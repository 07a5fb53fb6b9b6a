import Foundation
import HybridBase

/// The publisher side of staged rollouts (`hybrid rollout start|advance|halt|status`): writes a
/// package's signed ``PackageRollout`` document into a static repository, and moves its pointer.
///
/// ```swift
/// let rollouts = PackageRolloutPublisher(writer: PackageWriter(repository: repo, platform: .native, signer: signer))
/// try rollouts.start(id: "shop", candidate: 8)              // 1 %, the pointer back on 7
/// try rollouts.advance(id: "shop", reason: "healthy")        // 10 %, … 100 %: the pointer on 8
/// try rollouts.halt(id: "shop", reason: "crash-free 50 % vs 99 %")  // blocked everywhere, 7 again
/// ```
///
/// Every document gets the next ``PackageRollout/sequence`` (documents are never deleted, so the
/// sequence only rises, and clients refuse an older one). While a rollout runs the pointer names
/// its baseline, so clients without an install id stay there; completing it points it at the
/// candidate. Packing a version above the candidate supersedes a rollout (clients follow the pointer again).
public struct PackageRolloutPublisher: Sendable {
    /// Signs the documents and knows the repository.
    public let writer: PackageWriter

    /// The stages a rollout goes through unless told otherwise: 1 %, 10 %, 50 %, 100 %.
    public static let defaultStages: [Double] = [1, 10, 50, 100]

    /// A publisher writing with `writer` (its repository and signer).
    public init(writer: PackageWriter) { self.writer = writer }

    /// The package's rollout document as the repository holds it, if any (its signature checked by `verifier` when given).
    /// - Throws: ``PackageFailure/invalidRollout(_:)`` and signature failures.
    public func current(id: String, verifier: (any SignatureVerifier)? = nil) throws -> PackageRollout? {
        try Self.current(in: writer.repository, id: id, verifier: verifier)
    }

    /// The rollout document of `id` in the repository at `repository`, if any; reading needs no signer.
    /// - Throws: ``PackageFailure/invalidRollout(_:)`` and signature failures.
    public static func current(in repository: URL, id: String, verifier: (any SignatureVerifier)? = nil) throws -> PackageRollout? {
        let path = PackageRepositoryLayout.rollout(id: id)
        guard let data = FileManager.default.contents(atPath: repository.appendingPathComponent(path).path) else { return nil }
        if let verifier {
            let signature = FileManager.default.contents(atPath: repository.appendingPathComponent(path + PackageRepositoryLayout.signatureSuffix).path)
            try DetachedSignature.verify(signature, of: data, what: "rollout", with: verifier)
        }
        return try PackageRollout.decode(data, expectedID: id)
    }

    /// Starts rolling `candidate` out over `baseline` (by default the version the pointer names, or
    /// the highest packed below the candidate) at the first of `stages`, and points the pointer at the baseline.
    /// - Throws: ``PackageFailure/invalidRollout(_:)`` (a rollout of this package is running, bad stages or versions),
    ///   ``PackageFailure/notInstalled(_:)`` (a version is not in the repository), write and key failures.
    @discardableResult
    public func start(id: String, candidate: Int, baseline: Int? = nil, stages: [Double] = Self.defaultStages,
                      now: Date = Date()) throws -> PackageRollout {
        try writer.checkSignerIsCurrent(now: now)
        let previous = try current(id: id)
        if let previous, previous.state == .running, previous.candidate.version >= (writer.latestVersion(id) ?? 0) {
            throw HybridError.pkg(.invalidRollout("the rollout of \(id)@\(previous.candidate.version) is running; advance it to the end or halt it first"))
        }
        guard let base = baseline ?? defaultBaseline(id: id, below: candidate) else {
            throw HybridError.pkg(.invalidRollout("no version of \(id) below \(candidate) to keep everyone else on"))
        }
        let rollout = PackageRollout(id: id, sequence: (previous?.sequence ?? 0) + 1, candidate: try writer.pointer(id: id, version: candidate),
                                     baseline: try writer.pointer(id: id, version: base), stages: stages, updated: now,
                                     keySequence: try keySequence())
        try publish(rollout)
        return rollout
    }

    /// Moves a running rollout to its next stage; from the last stage below 100 % to 100 % it completes it.
    /// - Throws: ``PackageFailure/invalidRollout(_:)`` when no rollout of `id` is running.
    @discardableResult
    public func advance(id: String, reason: String? = nil, now: Date = Date()) throws -> PackageRollout {
        var rollout = try running(id)
        rollout.stage = min(rollout.stage + 1, rollout.stages.count - 1)
        if rollout.stages[rollout.stage] >= 100 { rollout.state = .completed }
        return try next(rollout, reason: reason, now: now)
    }

    /// Halts a running rollout: every client blocks the candidate, and installs on it go back to the baseline.
    /// - Throws: ``PackageFailure/invalidRollout(_:)`` when no rollout of `id` is running.
    @discardableResult
    public func halt(id: String, reason: String, now: Date = Date()) throws -> PackageRollout {
        var rollout = try running(id)
        rollout.state = .halted
        return try next(rollout, reason: reason, now: now)
    }

    private func running(_ id: String) throws -> PackageRollout {
        guard let rollout = try current(id: id), rollout.state == .running else {
            throw HybridError.pkg(.invalidRollout("no rollout of \(id) is running"))
        }
        return rollout
    }

    private func next(_ rollout: PackageRollout, reason: String?, now: Date) throws -> PackageRollout {
        try writer.checkSignerIsCurrent(now: now)
        var rollout = rollout
        rollout.sequence += 1
        rollout.reason = reason
        rollout.updated = now
        rollout.keySequence = try keySequence()
        try publish(rollout)
        return rollout
    }

    /// Writes the document, then the pointer it implies: the baseline while it runs or after a
    /// halt, the candidate once complete (rollout first, so a client never sees the pointer move early).
    private func publish(_ rollout: PackageRollout) throws {
        try rollout.validate()
        try writer.writeSigned(try rollout.encoded(), to: PackageRepositoryLayout.rollout(id: rollout.id))
        let pointer = rollout.state == .completed ? rollout.candidate : rollout.baseline
        var fresh = try writer.pointer(id: rollout.id, version: pointer.version)
        fresh.created = pointer.created
        try writer.writeSigned(try fresh.encoded(), to: PackageRepositoryLayout.pointer(id: rollout.id))
    }

    private func defaultBaseline(id: String, below candidate: Int) -> Int? {
        if let latest = writer.latestVersion(id), latest < candidate { return latest }
        let directory = writer.repository.appendingPathComponent("packages").appendingPathComponent(id)
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).compactMap(Int.init)
        return versions.filter { $0 < candidate && (try? writer.pointer(id: id, version: $0)) != nil }.max()
    }

    private func keySequence() throws -> Int? {
        let rotations = try KeyRotation.Signed.chain(in: writer.repository)
        return rotations.isEmpty ? nil : rotations.count
    }
}
