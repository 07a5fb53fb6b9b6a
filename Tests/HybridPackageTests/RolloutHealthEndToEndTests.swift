import Foundation
@testable import HybridCore
@testable import HybridHealth
@testable import HybridPackages
import HybridCrypto
import HybridFixtures
import Testing

/// The loop closed end to end: installs update through a staged rollout, their launches are
/// recorded in health files the way the container records them (`HealthLogFile`, under the
/// release each install runs), and `hybrid rollout advance --auto` reads those files and halts
/// or advances the rollout in the repository, which the installs follow on their next launch.
@Suite(.serialized) struct RolloutHealthEndToEndTests {
    static let installs = (0..<40).map { "device-\($0)" }
    /// Launches recorded so far: paint times cycle with it, so both sides draw from the same spread.
    private let counter = LockedState(0)

    /// Records `launches` launches of what `install` runs into `log`: each says ready and paints,
    /// except that every `crashEvery`-th one's content process dies first (never ready).
    func launch(_ fixture: RolloutFixture, _ install: String, times launches: Int, crashEvery: Int?, into log: HealthLogFile) throws {
        guard let version = fixture.active(install) else { return }
        for index in 0..<launches {
            let context = HealthContext(packageID: "shop", packageVersion: version, engine: "webkitgtk", launchID: "\(install)-\(UUID().uuidString)")
            log.record(HealthEvent(.launch(source: .package), context: context))
            if let crashEvery, (index + 1) % crashEvery == 0 {
                log.record(HealthEvent(.processTerminated(reason: "crashed"), context: context))
                continue
            }
            let paint = counter.withLock { count in
                count += 1
                return Double(80 + (count * 7) % 40)
            }
            log.record(HealthEvent(.pageTiming(PageTiming(firstContentfulPaint: paint)), context: context))
            log.record(HealthEvent(.ready(milliseconds: 120), context: context))
            if fixture.installer(install).store.activeRecord("shop")?.confirmed == false {
                try fixture.installer(install).markLoaded("shop")   // what boot health does on ready
            }
        }
    }

    func rollout(_ fixture: RolloutFixture, _ arguments: String...) async throws -> HybridTool.Run {
        let tool = try HybridTool.built()
        // status verifies with the public key; the other actions sign with the private one.
        let key = arguments.first == "status" ? fixture.root.appendingPathComponent("keys/public") : fixture.privateKey
        let all = ["rollout"] + arguments + ["--repo", fixture.repository.path, "--id", "shop", "--key", key.path]
        return try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try tool.run(all) }) }.start()
        }
    }

    @Test func aCandidateCrashingInHalfItsLaunchesIsHaltedAndItsBucketGoesBack() async throws {
        let fixture = try RolloutFixture()
        try fixture.pack(1)
        try await fixture.seed(Self.installs)
        try fixture.pack(2, staged: true)
        let started = try await rollout(fixture, "start", "--candidate", "2", "--stages", "10,50,100")
        #expect(started.status == 0 && started.output.contains("running, candidate 2 over baseline 1 at 10 %"), "\(started.output)")
        for install in Self.installs { _ = try await fixture.updater(install).update("shop") }
        let inside = Self.installs.filter { fixture.active($0) == 2 }
        #expect(!inside.isEmpty && inside.count < 10, "\(inside.count) of \(Self.installs.count) at 10 %")

        let logs = [HealthLogFile(url: fixture.root.appendingPathComponent("health/a.jsonl"), serviceName: "Shop", serviceVersion: "1"),
                    HealthLogFile(url: fixture.root.appendingPathComponent("health/b.jsonl"), serviceName: "Shop", serviceVersion: "1")]
        for (index, install) in Self.installs.enumerated() {
            try launch(fixture, install, times: 1, crashEvery: fixture.active(install) == 2 ? 2 : nil, into: logs[index % 2])
        }
        // A few launches, half of them crashed, are not enough to judge: nothing is written.
        let early = try await rollout(fixture, "advance", "--auto", logs[0].url.path, logs[1].url.path)
        #expect(early.status == 0 && early.output.contains("verdict: wait: too few launches"), "\(early.output)")
        #expect(try PackageRolloutPublisher.current(in: fixture.repository, id: "shop")?.sequence == 1)

        let perInstall = 60 / inside.count + 1
        for (index, install) in Self.installs.enumerated() {
            let candidate = fixture.active(install) == 2
            try launch(fixture, install, times: candidate ? perInstall : 2, crashEvery: candidate ? 2 : nil, into: logs[index % 2])
        }
        let judged = try await rollout(fixture, "advance", "--auto", logs[0].url.path, logs[1].url.path)
        #expect(judged.status == 3, "\(judged.output)")
        #expect(judged.output.contains("verdict: halt: crash_free_rate"), "\(judged.output)")
        #expect(judged.output.contains("halted, candidate 2 over baseline 1"), "\(judged.output)")

        // Next launch: the bucket is back on 1 without a download, and 2 is blocked everywhere.
        fixture.server.resetLog()
        for install in Self.installs {
            let report = try await fixture.updater(install).update("shop")
            #expect(fixture.active(install) == 1)
            #expect(report.rollout?.returnedToKept == inside.contains(install))
            #expect(fixture.installer(install).store.state("shop").rejected == [2])
        }
        #expect(fixture.downloadsBeyondChecks.isEmpty, "\(fixture.downloadsBeyondChecks)")
        let status = try await rollout(fixture, "status")
        #expect(status.status == 0 && status.output.contains("halted") && status.output.contains("reason: crash_free_rate"), "\(status.output)")
        #expect(status.output.contains("signature: verified"), "\(status.output)")

        // status refuses a document whose signature does not hold, and one without a signature.
        let document = fixture.repository.appendingPathComponent("packages/shop/rollout.json")
        let signature = fixture.repository.appendingPathComponent("packages/shop/rollout.json.sig")
        let signed = try Data(contentsOf: document)
        try Data(String(decoding: signed, as: UTF8.self).replacingOccurrences(of: "halted", with: "running").utf8).write(to: document)
        let altered = try await rollout(fixture, "status")
        #expect(altered.status != 0 && altered.output.contains("bad_signature") && !altered.output.contains("running,"), "\(altered.output)")
        try signed.write(to: document)
        try FileManager.default.removeItem(at: signature)
        let unsigned = try await rollout(fixture, "status")
        #expect(unsigned.status != 0 && unsigned.output.contains("missing_signature"), "\(unsigned.output)")
    }

    @Test func aHealthyCandidateAdvancesToEveryone() async throws {
        let fixture = try RolloutFixture()
        try fixture.pack(1)
        try await fixture.seed(Self.installs)
        try fixture.pack(2, staged: true)
        #expect(try await rollout(fixture, "start", "--candidate", "2", "--stages", "10,50,100").status == 0)
        let log = HealthLogFile(url: fixture.root.appendingPathComponent("health/all.jsonl"), serviceName: "Shop", serviceVersion: "1")
        var percents: [String] = []
        for _ in 0..<2 {
            for install in Self.installs { _ = try await fixture.updater(install).update("shop") }
            let inside = Self.installs.filter { fixture.active($0) == 2 }.count
            // Both sides crash in one launch of 25: the same health, with some noise.
            for install in Self.installs {
                let candidate = fixture.active(install) == 2
                try launch(fixture, install, times: candidate ? 60 / inside + 1 : 3, crashEvery: 25, into: log)
            }
            let step = try await rollout(fixture, "advance", "--auto", log.url.path)
            #expect(step.status == 0 && step.output.contains("verdict: advance"), "\(step.output)")
            percents.append(step.output)
        }
        #expect(percents[0].contains("running, candidate 2 over baseline 1 at 50 %"), "\(percents[0])")
        #expect(percents[1].contains("completed, candidate 2 over baseline 1 at 100 %"), "\(percents[1])")
        for install in Self.installs {
            _ = try await fixture.updater(install).update("shop")
            #expect(fixture.active(install) == 2)
        }
    }
}
