import Foundation
import HybridBase

/// Faults a test injects into a ``PackageStore`` to prove that nothing is lost when the
/// process dies mid-install or the disk fills up.
///
/// A crash point makes the installer throw ``PackageFailure/injectedCrash(_:)`` at that step
/// *without* cleaning up, leaving the disk exactly as a killed process would; a new installer
/// on the same store then plays the restart. Shared by reference so a test can arm it after
/// handing the store out.
public final class PackageFaults: @unchecked Sendable {
    // Guarded by `lock`: tests arm faults from one task while installers read them on others.
    private let lock = NSLock()
    private var crashSteps: Set<PackageInstaller.Step> = []
    private var trialCrashSteps: Set<BootTrial.Step> = []
    private var writeBudget: Int?
    private var failingPathFragment: String?

    /// No faults armed: every step and write succeeds.
    public init() {}

    /// Makes the next install "crash" at `step` (once).
    public func crash(at step: PackageInstaller.Step) {
        lock.withLock { _ = crashSteps.insert(step) }
    }

    /// Makes the next boot-trial operation "crash" at `step` (once).
    public func crash(at step: BootTrial.Step) {
        lock.withLock { _ = trialCrashSteps.insert(step) }
    }

    /// Lets `bytes` more bytes be written, then fails every write with ``PackageFailure/diskFull(path:)``.
    public func diskFull(afterBytes bytes: Int) {
        lock.withLock { writeBudget = bytes }
    }

    /// Fails every write to a path containing `fragment` with ``PackageFailure/diskFull(path:)``.
    public func failWrites(toPathsContaining fragment: String) {
        lock.withLock { failingPathFragment = fragment }
    }

    /// Disarms every fault.
    public func reset() {
        lock.withLock {
            crashSteps = []
            trialCrashSteps = []
            writeBudget = nil
            failingPathFragment = nil
        }
    }

    func checkpoint(_ step: PackageInstaller.Step) throws {
        let armed = lock.withLock { crashSteps.remove(step) != nil }
        if armed { throw HybridError.pkg(.injectedCrash(step.rawValue)) }
    }

    func checkpoint(_ step: BootTrial.Step) throws {
        let armed = lock.withLock { trialCrashSteps.remove(step) != nil }
        if armed { throw HybridError.pkg(.injectedCrash(step.rawValue)) }
    }

    func willWrite(_ count: Int, to path: String) throws {
        try lock.withLock {
            if let fragment = failingPathFragment, path.contains(fragment) {
                throw HybridError.pkg(.diskFull(path: path))
            }
            guard let budget = writeBudget else { return }
            guard count <= budget else {
                writeBudget = 0
                throw HybridError.pkg(.diskFull(path: path))
            }
            writeBudget = budget - count
        }
    }
}
