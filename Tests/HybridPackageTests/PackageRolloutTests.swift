import Foundation
@testable import HybridCore
@testable import HybridBase
@testable import HybridHealth
@testable import HybridPackages
import HybridCrypto
import HybridFixtures
import HybridServer
import Testing

/// A repository with a staged rollout on a loopback server, and many simulated installs, each
/// with a store of its own and a stable install id, updating through the real `PackageUpdater`.
final class RolloutFixture: @unchecked Sendable {
    let root: URL
    let signer: Ed25519Signer
    let verifier: Ed25519Verifier
    let server: RepositoryServer
    let platform = PackagePlatform.native

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("hk-rollout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        signer = try Ed25519KeyFiles.generate(into: root.appendingPathComponent("keys"))
        verifier = try Ed25519Verifier(publicKey: signer.publicKey)
        server = try RepositoryServer(directory: root.appendingPathComponent("repo"))
    }

    deinit {
        server.server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    var repository: URL { root.appendingPathComponent("repo") }
    var privateKey: URL { root.appendingPathComponent("keys/private") }
    var writer: PackageWriter { PackageWriter(repository: repository, platform: platform, signer: signer) }
    var publisher: PackageRolloutPublisher { PackageRolloutPublisher(writer: writer) }

    /// Packs version `version` of `shop` (three small files that say the version); `staged` leaves the pointer.
    func pack(_ version: Int, staged: Bool = false) throws {
        let site = root.appendingPathComponent("site")
        try? FileManager.default.removeItem(at: site)
        try FileManager.default.createDirectory(at: site.appendingPathComponent("js"), withIntermediateDirectories: true)
        try Data("<!doctype html><title>v\(version)</title><script src=js/app.js></script>".utf8).write(to: site.appendingPathComponent("index.html"))
        try Data("console.log('v\(version)');\n".utf8).write(to: site.appendingPathComponent("js/app.js"))
        try Data("shared, unchanged between versions".utf8).write(to: site.appendingPathComponent("js/lib.js"))
        var options = PackageWriter.Options(id: "shop", version: version, origin: "https://m.example.com/shop/", patchDepth: 0)
        options.holdsPointer = staged
        try writer.pack(site, options: options)
    }

    func installer(_ install: String) -> PackageInstaller {
        let store = PackageStore(.init(root: root.appendingPathComponent("installs/\(install)"), lockTimeout: 10, gcGracePeriod: 0))
        return PackageInstaller(store: store, platform: platform, verifier: verifier)
    }

    func updater(_ install: String, verifier: (any SignatureVerifier)? = nil, health: HealthRecorder? = nil) -> PackageUpdater {
        let installer = verifier.map { PackageInstaller(store: self.installer(install).store, platform: platform, verifier: $0) } ?? installer(install)
        return PackageUpdater(repository: server.url, installer: installer, timeout: 10, health: health, healthEngine: "webkitgtk",
                              installID: install)
    }

    /// Gives every install the pointer's version: the first updates, the others start from a copy of its store.
    func seed(_ installs: [String]) async throws {
        guard let first = installs.first else { return }
        _ = try await updater(first).update("shop")
        for install in installs.dropFirst() {
            try FileManager.default.copyItem(at: installer(first).store.root, to: installer(install).store.root)
        }
    }

    func active(_ install: String) -> Int? { installer(install).store.activeVersion("shop") }

    /// Repository paths requested since the last reset that are not the two signed documents a check reads.
    var downloadsBeyondChecks: [String] {
        server.requests.map(\.path).filter { !$0.hasPrefix("packages/shop/latest.json") && !$0.hasPrefix("packages/shop/rollout.json") }
    }
}

@Suite(.serialized) struct PackageRolloutTests {
    static let installs = (0..<24).map { "install-\($0)" }

    @Test func theCandidateReachesOnlyTheBucketAndARaisedStageKeepsEveryoneIn() async throws {
        let fixture = try RolloutFixture()
        try fixture.pack(1)
        try await fixture.seed(Self.installs)
        try fixture.pack(2, staged: true)
        #expect(fixture.writer.latestVersion("shop") == 1)
        let rollout = try fixture.publisher.start(id: "shop", candidate: 2, stages: [20, 60, 100])
        #expect(rollout.baseline.version == 1 && rollout.percent == 20)

        var inside: Set<String> = []
        for install in Self.installs {
            let report = try await fixture.updater(install).update("shop")
            let expected = RolloutBucket(installID: install, ruleID: "package:shop@2").isIncluded(inRollout: 20)
            #expect(report.rollout?.inside == expected)
            if expected {
                inside.insert(install)
                #expect(fixture.active(install) == 2)
                // The baseline stays in the store even once the candidate is confirmed.
                try fixture.installer(install).markLoaded("shop")
                #expect(fixture.installer(install).store.activeRecord("shop")?.retained == 1)
            } else {
                // Outside the bucket the candidate is never installed, nor even accepted as seen.
                #expect(fixture.active(install) == 1)
                #expect(fixture.installer(install).store.state("shop").highestSeen == 1)
                #expect(!FileManager.default.fileExists(atPath: fixture.installer(install).store.versionDirectory("shop", 2).path))
            }
        }
        #expect(!inside.isEmpty && inside.count < Self.installs.count, "\(inside.count) of \(Self.installs.count) inside 20 %")

        try fixture.publisher.advance(id: "shop")
        var insideNow: Set<String> = []
        for install in Self.installs {
            _ = try await fixture.updater(install).update("shop")
            if fixture.active(install) == 2 { insideNow.insert(install) }
        }
        #expect(inside.isSubset(of: insideNow) && insideNow.count > inside.count)

        // Completing it points everyone, and the pointer, at the candidate; the baseline is let go.
        let completed = try fixture.publisher.advance(id: "shop")
        #expect(completed.state == .completed && fixture.writer.latestVersion("shop") == 2)
        for install in Self.installs {
            _ = try await fixture.updater(install).update("shop")
            #expect(fixture.active(install) == 2)
            #expect(fixture.installer(install).store.activeRecord("shop")?.retained == nil)
        }
    }

    @Test func aHaltSendsTheBucketBackWithoutADownloadAndBlocksTheCandidateForGood() async throws {
        let fixture = try RolloutFixture()
        try fixture.pack(1)
        try await fixture.seed(Self.installs)
        try fixture.pack(2, staged: true)
        try fixture.publisher.start(id: "shop", candidate: 2, stages: [30, 100])
        for install in Self.installs {
            _ = try await fixture.updater(install).update("shop")
            if fixture.active(install) == 2 { try fixture.installer(install).markLoaded("shop") }
        }
        let onCandidate = Self.installs.filter { fixture.active($0) == 2 }
        #expect(!onCandidate.isEmpty)

        let halted = try fixture.publisher.halt(id: "shop", reason: "crash-free 0.5 vs 1.0")
        #expect(halted.state == .halted && fixture.writer.latestVersion("shop") == 1)
        fixture.server.resetLog()
        for install in Self.installs {
            let report = try await fixture.updater(install).update("shop")
            #expect(fixture.active(install) == 1)
            #expect(fixture.installer(install).store.state("shop").rejected == [2], "blocked on every install, \(install)")
            #expect(report.rollout?.returnedToKept == onCandidate.contains(install))
        }
        #expect(fixture.downloadsBeyondChecks.isEmpty, "no manifest or blob fetched: \(fixture.downloadsBeyondChecks)")

        // Blocked for good: a pointer naming the candidate again does not bring it back.
        try fixture.writer.writeSigned(try fixture.writer.pointer(id: "shop", version: 2).encoded(), to: PackageRepositoryLayout.pointer(id: "shop"))
        for install in onCandidate {
            _ = try await fixture.updater(install).update("shop")
            #expect(fixture.active(install) == 1)
        }
        // The fix, packed above the candidate, supersedes the rollout.
        try fixture.pack(3)
        for install in Self.installs.prefix(5) {
            _ = try await fixture.updater(install).update("shop")
            #expect(fixture.active(install) == 3)
        }
    }

    @Test func anUnsignedForeignOrReplayedRolloutIsRefusedAndChangesNothing() async throws {
        let fixture = try RolloutFixture()
        try fixture.pack(1)
        try fixture.pack(2, staged: true)
        let install = "install-hostile"
        _ = try await fixture.updater(install).update("shop")
        try fixture.publisher.start(id: "shop", candidate: 2, stages: [100])   // 100 % at once: this install is inside
        let rolloutPath = fixture.repository.appendingPathComponent(PackageRepositoryLayout.rollout(id: "shop"))
        let signaturePath = URL(fileURLWithPath: rolloutPath.path + ".sig")
        let document = try Data(contentsOf: rolloutPath), signature = try Data(contentsOf: signaturePath)

        func expectRefused(_ code: String, sourceLocation: SourceLocation = #_sourceLocation) async {
            do {
                _ = try await fixture.updater(install).update("shop")
                Issue.record("accepted", sourceLocation: sourceLocation)
            } catch HybridError.package(let reason) {
                #expect(reason.code == code, sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(error)", sourceLocation: sourceLocation)
            }
            #expect(fixture.active(install) == 1, sourceLocation: sourceLocation)
        }
        try FileManager.default.removeItem(at: signaturePath)
        await expectRefused("missing_signature")
        let stranger = try Ed25519Signer.generate()
        try DetachedSignature.fileData(try stranger.sign(document)).write(to: signaturePath)
        await expectRefused("bad_signature")
        var tampered = try PackageRollout.decode(document)
        tampered.stages = [100]
        tampered.candidate.version = 2
        tampered.sequence = 99
        try tampered.encoded().write(to: rolloutPath)
        try signature.write(to: signaturePath)
        await expectRefused("bad_signature")
        // Signed by the publisher but inconsistent: stages that do not end at 100.
        var inconsistent = tampered
        inconsistent.stages = [10, 50]
        let inconsistentData = try PackageDates.encoder.encode(inconsistent)
        try inconsistentData.write(to: rolloutPath)
        try DetachedSignature.fileData(try fixture.signer.sign(inconsistentData)).write(to: signaturePath)
        await expectRefused("invalid_rollout")

        // The real one installs the candidate; after a halt, replaying the older "running" document is refused.
        try document.write(to: rolloutPath)
        try signature.write(to: signaturePath)
        _ = try await fixture.updater(install).update("shop")
        #expect(fixture.active(install) == 2)
        try fixture.publisher.halt(id: "shop", reason: "by hand")
        _ = try await fixture.updater(install).update("shop")
        #expect(fixture.active(install) == 1)
        try document.write(to: rolloutPath)
        try signature.write(to: signaturePath)
        do {
            _ = try await fixture.updater(install).update("shop")
            Issue.record("a replayed rollout document was accepted")
        } catch HybridError.package(.rolloutReplayed(let offered, let seen)) {
            #expect(offered == 1 && seen == 2)
        }
        #expect(fixture.active(install) == 1)
    }
}
