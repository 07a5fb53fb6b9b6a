import Foundation
import HybridBase

/// A staged rollout of one package version: the signed document a repository keeps beside the
/// package's pointer (`packages/ID/rollout.json` and `.sig`, ``PackageRepositoryLayout/rollout(id:)``).
///
/// It names the **candidate** (the version being rolled out) and the **baseline** (the version
/// every install outside the rollout stays on), each as a ``PackagePointer`` (version, manifest
/// path and SHA-256), the **stages** (percentages of install buckets, rising) and the stage it is
/// at. An install is inside the rollout when its ``RolloutBucket`` for the key
/// ``bucketKey`` is below the stage's percentage; the key is the package and the candidate, so a
/// raised stage keeps everyone already in, and the next candidate starts with other installs.
///
/// ``sequence`` rises with every document the publisher writes for the package; a client refuses
/// a document below the highest it has accepted (``PackageFailure/rolloutReplayed(offered:highestSeen:)``),
/// so an old "10 %, running" document cannot be replayed over a halt.
///
/// While a rollout runs, the pointer (`latest.json`) names the baseline, so clients that know
/// nothing of rollouts (or have no install id) stay on it; when the rollout completes, the
/// pointer moves to the candidate.
public struct PackageRollout: Codable, Sendable, Equatable {
    /// Where a rollout is.
    public enum State: String, Codable, Sendable {
        /// Installs inside the current stage get the candidate; the others stay on the baseline.
        case running
        /// Stopped: the candidate is blocked on every install, and installs on it go back to the baseline.
        case halted
        /// Every install gets the candidate (the last stage was 100 %); the baseline is no longer kept.
        case completed
    }

    /// The format it was written in (1).
    public var format: Int
    /// The package id.
    public var id: String
    /// Rises with every rollout document written for this package.
    public var sequence: Int
    /// The version being rolled out.
    public var candidate: PackagePointer
    /// The version everyone outside the rollout stays on, and the one a halt returns to.
    public var baseline: PackagePointer
    /// The stages' percentages of install buckets, rising, the last 100 (`[1, 10, 50, 100]`).
    public var stages: [Double]
    /// The index in ``stages`` of the current stage.
    public var stage: Int
    /// Where the rollout is.
    public var state: State
    /// Why the rollout was halted or advanced (what `hybrid rollout advance --auto` decided), if given.
    public var reason: String?
    /// When this document was written.
    public var updated: Date
    /// As ``PackagePointer/keySequence``: how many key rotations the signing key is past the roots.
    public var keySequence: Int?

    /// The format this build writes and reads.
    public static let currentFormat = 1

    /// A rollout of `candidate` over `baseline`, at stage `stage` of `stages`.
    public init(id: String, sequence: Int, candidate: PackagePointer, baseline: PackagePointer, stages: [Double],
                stage: Int = 0, state: State = .running, reason: String? = nil, updated: Date = Date(), keySequence: Int? = nil) {
        self.format = Self.currentFormat
        self.id = id
        self.sequence = sequence
        self.candidate = candidate
        self.baseline = baseline
        self.stages = stages
        self.stage = stage
        self.state = state
        self.reason = reason
        self.updated = updated
        self.keySequence = keySequence
    }

    /// The percentage of install buckets the candidate reaches now: the current stage's, 100 once
    /// completed, 0 once halted.
    public var percent: Double {
        switch state {
        case .running: stages[min(max(stage, 0), stages.count - 1)]
        case .completed: 100
        case .halted: 0
        }
    }

    /// The ``RolloutBucket`` rule key of this rollout: `package:ID@CANDIDATE`.
    public var bucketKey: String { "package:\(id)@\(candidate.version)" }

    /// Whether the install `installID` is inside the rollout now (always for a completed one, never for a halted one).
    public func includes(installID: String) -> Bool {
        switch state {
        case .completed: true
        case .halted: false
        case .running: RolloutBucket(installID: installID, ruleID: bucketKey).isIncluded(inRollout: percent)
        }
    }

    /// The version the install `installID` should run.
    public func target(installID: String) -> Int {
        includes(installID: installID) ? candidate.version : baseline.version
    }

    /// The JSON bytes a publisher signs.
    public func encoded() throws -> Data { try PackageDates.encoder.encode(self) }

    /// Decodes rollout bytes (after their signature verified) and checks they are consistent and name `id`.
    /// - Throws: ``PackageFailure/invalidRollout(_:)``.
    public static func decode(_ data: Data, expectedID: String? = nil) throws -> PackageRollout {
        let rollout: PackageRollout
        do {
            rollout = try PackageDates.decoder.decode(PackageRollout.self, from: data)
        } catch {
            throw HybridError.pkg(.invalidRollout("\(error)"))
        }
        try rollout.validate()
        if let expectedID, rollout.id != expectedID {
            throw HybridError.pkg(.invalidRollout("rollout names '\(rollout.id)', expected '\(expectedID)'"))
        }
        return rollout
    }

    /// Checks the document is one a publisher could have written: valid id and pointers of that
    /// package, candidate above baseline, stages rising within (0, 100] and ending at 100, a stage inside them.
    /// - Throws: ``PackageFailure/invalidRollout(_:)``.
    public func validate() throws {
        func fail(_ message: String) -> HybridError { .pkg(.invalidRollout(message)) }
        guard format == Self.currentFormat else { throw fail("format \(format) is not \(Self.currentFormat)") }
        guard PackageManifest.isValidID(id), sequence >= 1 else { throw fail("bad id or sequence") }
        for pointer in [candidate, baseline] {
            do { _ = try PackagePointer.decode(try pointer.encoded(), expectedID: id) } catch {
                throw fail("\(pointer.version == candidate.version ? "candidate" : "baseline"): \(error)")
            }
        }
        guard candidate.version > baseline.version else {
            throw fail("candidate \(candidate.version) must be above baseline \(baseline.version)")
        }
        guard !stages.isEmpty, stages.allSatisfy({ $0 > 0 && $0 <= 100 }), zip(stages, stages.dropFirst()).allSatisfy({ $0 < $1 }),
              stages.last == 100 else {
            throw fail("stages must rise within (0, 100] and end at 100")
        }
        guard stages.indices.contains(stage) else { throw fail("stage \(stage) is not one of \(stages.count)") }
    }
}

extension PackageRepositoryLayout {
    /// The path of package `id`'s staged-rollout document (`packages/ID/rollout.json`), signed beside it (`.sig`).
    public static func rollout(id: String) -> String { "packages/\(id)/rollout.json" }
}
