import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import Testing

/// Boot health's persistent half: launches of a version on trial are counted before the page
/// loads, a failure rolls it back to the last confirmed version and blocks it, a confirmed
/// version is never rolled back, and a process killed at any step resumes correctly.
@Suite struct BootTrialTests {
    /// A store with v1 confirmed and `versions` packed (each with its own title).
    func fixture(packing versions: ClosedRange<Int> = 1...2, faults: PackageFaults? = nil) throws -> (PackageFixture, PackageStore) {
        let fixture = try PackageFixture()
        for version in versions {
            var files = PackageFixture.sampleSite
            files["index.html"] = "<title>v\(version)</title>"
            try fixture.pack(version: version, files: files)
        }
        let store = fixture.store(faults: faults)
        try fixture.installFromDisk(version: 1, into: store)
        try fixture.installer(store).markLoaded("app")
        return (fixture, store)
    }

    /// A fresh trial on the store: what the next process after a kill starts with.
    func trial(_ fixture: PackageFixture, _ store: PackageStore, launches: Int = 3) -> BootTrial {
        BootTrial(installer: fixture.installer(store), policy: BootHealthPolicy(maxTrialLaunches: launches))
    }

    @Test func policyDefaultsToAppReadyWithinTenSecondsAndThreeLaunches() {
        let policy = BootHealthPolicy()
        #expect(policy.signal == .appReady && policy.timeout == 10 && policy.maxTrialLaunches == 3 && policy.hasTrial)
        #expect(!BootHealthPolicy.firstLoad.hasTrial)
        #expect(BootHealthPolicy(maxTrialLaunches: 0).maxTrialLaunches == 1)
        #expect(BootFailure.scriptError(message: "x", source: "y", line: 1).code == "script_error")
    }

    @Test func eachLaunchIsCountedOnDiskBeforeThePageLoads() throws {
        let (fixture, store) = try fixture()
        #expect(try trial(fixture, store).beginLaunch("app") == .confirmed(version: 1))
        try fixture.installFromDisk(version: 2, into: store)
        #expect(try trial(fixture, store).beginLaunch("app") == .trial(version: 2, launch: 1))
        #expect(trial(fixture, store).record("app") == .init(version: 2, launches: 1, failure: nil))
        // A new process (a new trial value) sees the count.
        #expect(try trial(fixture, store).beginLaunch("app") == .trial(version: 2, launch: 2))
    }

    @Test func kLaunchesWithoutReadyRollBackAtTheNextLaunchBeforeLoading() throws {
        let (fixture, store) = try fixture()
        try fixture.installFromDisk(version: 2, into: store)
        for launch in 1...3 {
            // Each launch is killed before ready and before the timeout: nothing but the count happens.
            #expect(try trial(fixture, store).beginLaunch("app") == .trial(version: 2, launch: launch))
            #expect(store.activeRecord("app") == .init(current: 2, previous: 1, confirmed: false))
        }
        let fourth = try trial(fixture, store).beginLaunch("app")
        #expect(fourth == .rolledBack(PackageRollback(id: "app", from: 2, to: 1, reason: .launchesExhausted(launches: 3))))
        #expect(store.activeRecord("app") == .init(current: 1, previous: nil, confirmed: true))
        #expect(store.state("app").rejected == [2])
        #expect(trial(fixture, store).record("app") == nil)
        #expect(throws: HybridError.package(.versionRejected(2))) { try fixture.installFromDisk(version: 2, into: store) }
    }

    @Test func aFailureRollsBackToTheLastConfirmedVersionAndBlocksTheFailedOne() throws {
        let (fixture, store) = try fixture()
        try fixture.installFromDisk(version: 2, into: store)
        _ = try trial(fixture, store).beginLaunch("app")
        let rollback = try trial(fixture, store).fail("app", version: 2, reason: .notReady(timeout: 10))
        #expect(rollback == PackageRollback(id: "app", from: 2, to: 1, reason: .notReady(timeout: 10)))
        #expect(store.activeRecord("app") == .init(current: 1, previous: nil, confirmed: true))
        #expect(store.state("app").rejected == [2])
        #expect(try trial(fixture, store).beginLaunch("app") == .confirmed(version: 1))
    }

    @Test func neverRollsBackAfterReady() throws {
        let (fixture, store) = try fixture()
        try fixture.installFromDisk(version: 2, into: store)
        #expect(try trial(fixture, store).beginLaunch("app") == .trial(version: 2, launch: 1))
        #expect(try trial(fixture, store).confirm("app", version: 2))
        #expect(store.activeRecord("app") == .init(current: 2, previous: nil, confirmed: true))
        for reason in [BootFailure.crashed, .whiteScreen, .notReady(timeout: 1), .scriptError(message: "boom", source: "app.js", line: 3)] {
            #expect(try trial(fixture, store).fail("app", version: 2, reason: reason) == nil)
        }
        for _ in 1...5 { #expect(try trial(fixture, store, launches: 1).beginLaunch("app") == .confirmed(version: 2)) }
        #expect(store.activeVersion("app") == 2 && store.state("app").rejected.isEmpty)
    }

    @Test func aFailureOfAVersionNoLongerActiveChangesNothing() throws {
        let (fixture, store) = try fixture(packing: 1...3)
        try fixture.installFromDisk(version: 2, into: store)
        _ = try trial(fixture, store).beginLaunch("app")
        try fixture.installFromDisk(version: 3, into: store)   // a newer version arrived meanwhile
        #expect(try trial(fixture, store).fail("app", version: 2, reason: .crashed) == nil)
        #expect(store.activeRecord("app") == .init(current: 3, previous: 1, confirmed: false))
        // The newer version starts its own trial from its first launch.
        #expect(try trial(fixture, store).beginLaunch("app") == .trial(version: 3, launch: 1))
    }

    @Test func aFirstVersionWithNothingToGoBackToStaysOnTrial() throws {
        let fixture = try PackageFixture()
        try fixture.pack(version: 1)
        let store = fixture.store()
        try fixture.installFromDisk(version: 1, into: store)
        for launch in 1...4 { #expect(try trial(fixture, store).beginLaunch("app") == .trial(version: 1, launch: launch)) }
        #expect(try trial(fixture, store).fail("app", version: 1, reason: .crashed) == nil)
        #expect(store.activeVersion("app") == 1 && store.state("app").rejected.isEmpty)
        #expect(try trial(fixture, store).confirm("app", version: 1))
        #expect(try trial(fixture, store).beginLaunch("app") == .confirmed(version: 1))
    }

    @Test func tenBadVersionsInARowKeepTheLastGoodOneRunning() throws {
        let (fixture, store) = try fixture(packing: 1...12)
        let reasons: [BootFailure] = [.crashed, .notReady(timeout: 10), .whiteScreen, .scriptError(message: "TypeError", source: "https://m.example.com/app/app.js", line: 7)]
        for version in 2...11 {
            try fixture.installFromDisk(version: version, into: store)
            #expect(store.activeRecord("app") == .init(current: version, previous: 1, confirmed: false))
            if version % 3 == 0 {
                // Killed before ready on every trial launch: rolled back by the launch after them.
                for launch in 1...3 { #expect(try trial(fixture, store).beginLaunch("app") == .trial(version: version, launch: launch)) }
                let next = try trial(fixture, store).beginLaunch("app")
                #expect(next == .rolledBack(PackageRollback(id: "app", from: version, to: 1, reason: .launchesExhausted(launches: 3))))
            } else {
                #expect(try trial(fixture, store).beginLaunch("app") == .trial(version: version, launch: 1))
                let reason = reasons[version % reasons.count]
                #expect(try trial(fixture, store).fail("app", version: version, reason: reason)
                        == PackageRollback(id: "app", from: version, to: 1, reason: reason))
            }
            #expect(store.activeRecord("app") == .init(current: 1, previous: nil, confirmed: true))
            #expect(try trial(fixture, store).beginLaunch("app") == .confirmed(version: 1))
        }
        #expect(store.state("app").rejected == Array(2...11))
        // None is activated again: the last as rejected, the older ones as downgrades too.
        #expect(throws: HybridError.package(.versionRejected(11))) { try fixture.installFromDisk(version: 11, into: store) }
        for version in 2...10 {
            #expect(throws: HybridError.self) { try fixture.installFromDisk(version: version, into: store) }
        }
        #expect(store.activeRecord("app") == .init(current: 1, previous: nil, confirmed: true))
        // A newer, good version is still activated, and confirmed by its ready.
        try fixture.installFromDisk(version: 12, into: store)
        #expect(try trial(fixture, store).beginLaunch("app") == .trial(version: 12, launch: 1))
        #expect(try trial(fixture, store).confirm("app", version: 12))
        #expect(store.activeRecord("app") == .init(current: 12, previous: nil, confirmed: true))
    }

    // MARK: Killed at every step

    @Test func killedRightAfterCountingTheLaunchTheCountSurvives() throws {
        let faults = PackageFaults()
        let (fixture, store) = try fixture(faults: faults)
        try fixture.installFromDisk(version: 2, into: store)
        faults.crash(at: BootTrial.Step.launchCounted)
        #expect(throws: HybridError.package(.injectedCrash(BootTrial.Step.launchCounted.rawValue))) {
            try trial(fixture, store).beginLaunch("app")
        }
        #expect(trial(fixture, store).record("app")?.launches == 1)
        #expect(try trial(fixture, store).beginLaunch("app") == .trial(version: 2, launch: 2))
    }

    @Test func killedAfterTheFailureIsRecordedTheNextLaunchFinishesTheRollback() throws {
        let faults = PackageFaults()
        let (fixture, store) = try fixture(faults: faults)
        try fixture.installFromDisk(version: 2, into: store)
        _ = try trial(fixture, store).beginLaunch("app")
        faults.crash(at: BootTrial.Step.failureRecorded)
        #expect(throws: HybridError.self) { try trial(fixture, store).fail("app", version: 2, reason: .crashed) }
        #expect(store.activeRecord("app") == .init(current: 2, previous: 1, confirmed: false))
        // A ready arriving late (from a page still up) must not confirm a version whose rollback began.
        #expect(try !trial(fixture, store).confirm("app", version: 2))
        let next = try trial(fixture, store).beginLaunch("app")
        #expect(next == .rolledBack(PackageRollback(id: "app", from: 2, to: 1, reason: .crashed)))
        #expect(store.activeRecord("app") == .init(current: 1, previous: nil, confirmed: true))
        #expect(store.state("app").rejected == [2])
    }

    @Test func killedBetweenRejectingAndSwitchingTheNextLaunchFinishesTheRollback() throws {
        let faults = PackageFaults()
        let (fixture, store) = try fixture(faults: faults)
        try fixture.installFromDisk(version: 2, into: store)
        _ = try trial(fixture, store).beginLaunch("app")
        // The rollback writes the rejection, then `active.json`: the second write dies.
        faults.failWrites(toPathsContaining: "active.json")
        #expect(throws: HybridError.self) { try trial(fixture, store).fail("app", version: 2, reason: .whiteScreen) }
        faults.reset()
        #expect(store.state("app").rejected == [2])
        #expect(store.activeRecord("app") == .init(current: 2, previous: 1, confirmed: false))
        let next = try trial(fixture, store).beginLaunch("app")
        #expect(next == .rolledBack(PackageRollback(id: "app", from: 2, to: 1, reason: .whiteScreen)))
        #expect(store.activeRecord("app") == .init(current: 1, previous: nil, confirmed: true))
    }

    @Test func killedAfterTheRollbackTheNextLaunchStillReportsIt() throws {
        let faults = PackageFaults()
        let (fixture, store) = try fixture(faults: faults)
        try fixture.installFromDisk(version: 2, into: store)
        _ = try trial(fixture, store).beginLaunch("app")
        faults.crash(at: BootTrial.Step.rolledBack)
        #expect(throws: HybridError.self) { try trial(fixture, store).fail("app", version: 2, reason: .notReady(timeout: 10)) }
        #expect(store.activeRecord("app") == .init(current: 1, previous: nil, confirmed: true))
        let next = try trial(fixture, store).beginLaunch("app")
        #expect(next == .rolledBack(PackageRollback(id: "app", from: 2, to: 1, reason: .notReady(timeout: 10))))
        #expect(try trial(fixture, store).beginLaunch("app") == .confirmed(version: 1))
    }

    @Test func killedAfterConfirmingTheVersionStaysConfirmed() throws {
        let faults = PackageFaults()
        let (fixture, store) = try fixture(faults: faults)
        try fixture.installFromDisk(version: 2, into: store)
        _ = try trial(fixture, store).beginLaunch("app")
        faults.crash(at: BootTrial.Step.confirmed)
        #expect(throws: HybridError.self) { try trial(fixture, store).confirm("app", version: 2) }
        #expect(store.activeRecord("app") == .init(current: 2, previous: nil, confirmed: true))
        #expect(try trial(fixture, store).fail("app", version: 2, reason: .crashed) == nil)
        #expect(try trial(fixture, store).beginLaunch("app") == .confirmed(version: 2))
        #expect(trial(fixture, store).record("app") == nil)
    }

    @Test func killedAtAnyStepOfTenLaunchesNoLaunchIsLost() throws {
        // Kill every launch right after its count is written: K of them exhaust the trial.
        let faults = PackageFaults()
        let (fixture, store) = try fixture(faults: faults)
        try fixture.installFromDisk(version: 2, into: store)
        for launch in 1...3 {
            faults.crash(at: BootTrial.Step.launchCounted)
            #expect(throws: HybridError.self) { try trial(fixture, store).beginLaunch("app") }
            #expect(trial(fixture, store).record("app")?.launches == launch)
        }
        #expect(try trial(fixture, store).beginLaunch("app")
                == .rolledBack(PackageRollback(id: "app", from: 2, to: 1, reason: .launchesExhausted(launches: 3))))
    }
}
