import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import HybridCrypto
import HybridServer
import Testing

/// Launch integrity: installed files damaged between launches are found before they are served
/// and repaired from the repository, or rolled back, or removed so the network serves them.
@Suite(.serialized) struct PackageIntegrityTests {
    func blobURL(_ fixture: UpdateFixture, _ path: String) throws -> URL {
        let package = try fixture.store.activePackage("app")
        return package.contentsURL(of: try #require(package.manifest.file(at: try PackagePath(path))))
    }

    /// Zeroes a file in place (same size) and truncates another: what a power cut or a cleaner leaves.
    func damage(_ fixture: UpdateFixture, zeroing: String = "js/m3.js", truncating: String = "img/i1.png") throws {
        let zeroed = try blobURL(fixture, zeroing), truncated = try blobURL(fixture, truncating)
        let size = try Data(contentsOf: zeroed).count
        let handle = try FileHandle(forWritingTo: zeroed)
        try handle.write(contentsOf: Data(count: size))
        try handle.close()
        let bytes = try Data(contentsOf: truncated)
        try bytes.prefix(bytes.count / 3).write(to: truncated)
    }

    @Test func theFirstCheckAfterActivationHashesEverythingThenLaunchesOnlyStat() async throws {
        let fixture = try UpdateFixture()
        try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        _ = try await fixture.updater.update("app")
        let integrity = PackageIntegrity(installer: fixture.installer)
        let first = try await integrity.checkAtLaunch("app")
        #expect(first.depth == .full && first.checked == 12 && first.hashed == 12 && first.isIntact)
        let second = try await integrity.checkAtLaunch("app")
        #expect(second.depth == .quick && second.checked == 12 && second.hashed == 1 && second.isIntact)   // the entry only
    }

    @Test func zeroedAndTruncatedFilesAreRepairedFromTheRepository() async throws {
        let fixture = try UpdateFixture()
        try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        _ = try await fixture.updater.update("app")
        let integrity = PackageIntegrity(installer: fixture.installer)
        _ = try await integrity.checkAtLaunch("app")
        try damage(fixture)

        let report = try await integrity.checkAtLaunch("app", repairFrom: fixture.updater)
        #expect(report.depth == .quick)
        #expect(report.hashed == 3)   // the entry and the two files whose stat changed
        #expect(report.damaged == ["img/i1.png", "js/m3.js"])
        #expect(report.repaired == ["img/i1.png", "js/m3.js"])
        #expect(report.unrepaired.isEmpty && report.rolledBackTo == nil)
        #expect(try fixture.contents(of: "js/m3.js") == UpdateFixture.site(version: 1)["js/m3.js"])
        #expect(try fixture.contents(of: "img/i1.png") == UpdateFixture.site(version: 1)["img/i1.png"])
        let next = try await integrity.checkAtLaunch("app")
        #expect(next.depth == .quick && next.isIntact && next.hashed == 1)
    }

    @Test func damageBeforeTheFirstCheckIsFoundEvenWhenTheStatLooksUntouched() async throws {
        let fixture = try UpdateFixture()
        try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        _ = try await fixture.updater.update("app")
        // Zero-filled with its size and modification time restored: only a hash can tell.
        let url = try blobURL(fixture, "js/m2.js")
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        let handle = try FileHandle(forWritingTo: url)
        try handle.write(contentsOf: Data(count: try #require(attributes[.size] as? NSNumber).intValue))
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: try #require(attributes[.modificationDate])], ofItemAtPath: url.path)

        let report = try await PackageIntegrity(installer: fixture.installer).checkAtLaunch("app", repairFrom: fixture.updater)
        #expect(report.depth == .full)
        #expect(report.damaged == ["js/m2.js"] && report.repaired == ["js/m2.js"])
    }

    @Test func withTheRepositoryUnreachableItRollsBackToAnIntactPreviousVersionWithoutRejectingTheDamagedOne() async throws {
        let fixture = try UpdateFixture()
        try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        _ = try await fixture.updater.update("app")
        try fixture.publish(version: 2, files: UpdateFixture.site(version: 2, changed: 4))
        _ = try await fixture.updater.update("app")   // not loaded yet: version 1 is kept
        let integrity = PackageIntegrity(installer: fixture.installer)
        _ = try await integrity.checkAtLaunch("app")
        // Two files only version 2 has (damage to a file both share would leave nothing intact to go back to).
        try damage(fixture, zeroing: "js/m3.js", truncating: "js/m2.js")
        fixture.server.inject { path, _ in path.hasPrefix("blobs/") ? .status(503) : nil }

        let report = try await integrity.checkAtLaunch("app", repairFrom: fixture.updater)
        #expect(report.damaged == ["js/m2.js", "js/m3.js"])
        #expect(report.repaired.isEmpty)
        #expect(report.rolledBackTo == 1)
        #expect(fixture.store.activeVersion("app") == 1)
        #expect(fixture.store.state("app").rejected.isEmpty)   // the version was fine; this device's copy was not
        // Once the repository is back, the next update installs version 2 again.
        fixture.server.inject(nil)
        #expect(try await fixture.updater.update("app").outcome == .installed(version: 2, previous: 1))
        #expect(try fixture.contents(of: "js/m3.js") == UpdateFixture.site(version: 2, changed: 4)["js/m3.js"])
    }

    @Test func damageToAFileThePreviousVersionSharesLeavesNothingToRollBackTo() async throws {
        let fixture = try UpdateFixture()
        try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        _ = try await fixture.updater.update("app")
        try fixture.publish(version: 2, files: UpdateFixture.site(version: 2, changed: 4))
        _ = try await fixture.updater.update("app")
        let integrity = PackageIntegrity(installer: fixture.installer)
        _ = try await integrity.checkAtLaunch("app")
        try damage(fixture, zeroing: "js/m3.js", truncating: "img/i1.png")   // the image is version 1's too
        let report = try await integrity.checkAtLaunch("app")
        #expect(report.rolledBackTo == nil)
        #expect(report.unrepaired == ["img/i1.png", "js/m3.js"])
        #expect(fixture.store.activeVersion("app") == 2)
    }

    @Test func withNothingToRepairFromTheDamagedFilesAreRemovedSoTheNetworkServesThem() async throws {
        let fixture = try UpdateFixture()
        try fixture.publish(version: 1, files: UpdateFixture.site(version: 1))
        _ = try await fixture.updater.update("app")
        let integrity = PackageIntegrity(installer: fixture.installer)
        _ = try await integrity.checkAtLaunch("app")
        try damage(fixture)
        let report = try await integrity.checkAtLaunch("app")
        #expect(report.unrepaired == ["img/i1.png", "js/m3.js"])
        #expect(!FileManager.default.fileExists(atPath: try blobURL(fixture, "js/m3.js").path))
        // The resolver sends a file the store lacks to the network (never damaged bytes).
        let package = try fixture.store.activePackage("app")
        let resolution = PackageResolver(package: package, customScheme: "app")
            .resolve(SchemeRequest(url: URL(string: "app://m.example.com/app/js/m3.js")!, method: "GET", headers: []))
        guard case .network(let url) = resolution else { Issue.record("served from the store: \(resolution)"); return }
        #expect(url.absoluteString == "https://m.example.com/app/js/m3.js")
        // The record is gone: the next launch checks everything again.
        #expect(try await integrity.checkAtLaunch("app").depth == .full)
    }
}
