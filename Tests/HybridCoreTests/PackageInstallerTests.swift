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
import Testing

@Suite struct PackageInstallerTests {
    @Test func installActivatesAndKeepsPreviousUntilLoaded() throws {
        let fixture = try PackageFixture()
        let store = fixture.store()
        try fixture.pack(version: 1)
        #expect(try fixture.installFromDisk(version: 1, into: store) == .installed(version: 1, previous: nil))
        #expect(try fixture.installFromDisk(version: 1, into: store) == .alreadyActive(version: 1))
        var files = PackageFixture.sampleSite
        files["index.html"] = "<title>v2</title>"
        try fixture.pack(version: 2, files: files)
        #expect(try fixture.installFromDisk(version: 2, into: store) == .installed(version: 2, previous: 1))
        #expect(store.activeRecord("app") == .init(current: 2, previous: 1, confirmed: false))
        #expect(FileManager.default.fileExists(atPath: store.versionDirectory("app", 1).path))

        try fixture.installer(store).markLoaded("app")
        #expect(store.activeRecord("app") == .init(current: 2, previous: nil, confirmed: true))
        #expect(!FileManager.default.fileExists(atPath: store.versionDirectory("app", 1).path))
        // v1's index.html is garbage now; v2's is kept.
        let old = try #require(try store.manifest("app", version: 2).files.first)
        #expect(store.hasBlob(old.sha256))
        #expect(store.packageIDs() == ["app"])
    }

    @Test func rollbackRestoresPreviousAndRejectsFailedVersion() throws {
        let fixture = try PackageFixture()
        let store = fixture.store()
        try fixture.pack(version: 1)
        try fixture.installFromDisk(version: 1, into: store)
        try fixture.installer(store).markLoaded("app")
        var files = PackageFixture.sampleSite
        files["index.html"] = "<title>broken v2</title>"
        try fixture.pack(version: 2, files: files)
        try fixture.installFromDisk(version: 2, into: store)
        #expect(try fixture.installer(store).rollback("app") == 1)
        #expect(store.activeVersion("app") == 1)
        #expect(store.state("app").rejected == [2])
        #expect(throws: HybridError.package(.versionRejected(2))) { try fixture.installFromDisk(version: 2, into: store) }
        #expect(throws: HybridError.package(.noPreviousVersion("app"))) { try fixture.installer(store).rollback("app") }
        // The served files are v1's.
        let index = try store.activePackage("app").manifest.file(at: try PackagePath("index.html"))
        #expect(index?.sha256 == fixture.platform.digests.sha256Hex(Data(PackageFixture.sampleSite["index.html"]!.utf8)))
    }

    @Test func unconfirmedVersionIsNotTheRollbackTarget() throws {
        let fixture = try PackageFixture()
        let store = fixture.store()
        for version in 1...3 {
            var files = PackageFixture.sampleSite
            files["index.html"] = "<title>v\(version)</title>"
            try fixture.pack(version: version, files: files)
        }
        try fixture.installFromDisk(version: 1, into: store)
        try fixture.installer(store).markLoaded("app")
        try fixture.installFromDisk(version: 2, into: store)   // never loads
        try fixture.installFromDisk(version: 3, into: store)
        #expect(store.activeRecord("app") == .init(current: 3, previous: 1, confirmed: false))
        #expect(try fixture.installer(store).rollback("app") == 1)
    }

    @Test func lowerVersionThanHighestSeenIsRefusedEvenAfterPackageDirectoryIsWiped() throws {
        let fixture = try PackageFixture()
        let store = fixture.store()
        try fixture.pack(version: 1)
        var files = PackageFixture.sampleSite
        files["index.html"] = "v2"
        try fixture.pack(version: 2, files: files)
        try fixture.installFromDisk(version: 2, into: store)
        #expect(throws: HybridError.package(.versionRollback(offered: 1, highestSeen: 2))) { try fixture.installFromDisk(version: 1, into: store) }
        try FileManager.default.removeItem(at: store.packageDirectory("app"))
        #expect(throws: HybridError.package(.versionRollback(offered: 1, highestSeen: 2))) { try fixture.installFromDisk(version: 1, into: store) }
    }

    @Test func badMissingOrForeignSignatureIsRefusedAndActiveVersionKeepsServing() throws {
        let fixture = try PackageFixture()
        let store = fixture.store()
        try fixture.pack(version: 1)
        try fixture.installFromDisk(version: 1, into: store)
        var files = PackageFixture.sampleSite
        files["index.html"] = "v2"
        try fixture.pack(version: 2, files: files)
        let data = try #require(fixture.repoFile("packages/app/2/manifest.json"))
        let installer = fixture.installer(store)
        #expect(throws: HybridError.package(.missingSignature("manifest"))) { try installer.install(manifest: data, signature: nil) }
        let foreign = DetachedSignature.fileData(try Ed25519Signer.generate().sign(data))
        #expect(throws: HybridError.package(.badSignature("manifest"))) { try installer.install(manifest: data, signature: foreign) }
        var tampered = data
        tampered.append(contentsOf: Array(" ".utf8))
        #expect(throws: HybridError.package(.badSignature("manifest"))) {
            try installer.install(manifest: tampered, signature: fixture.repoFile("packages/app/2/manifest.json.sig"))
        }
        #expect(throws: HybridError.package(.badSignature("manifest"))) { try installer.install(manifest: data, signature: Data("AAAA".utf8)) }
        #expect(store.activeVersion("app") == 1)
        #expect(store.state("app").highestSeen == 1)   // a refused manifest is not "seen"
    }

    @Test(arguments: ["../evil.js", "/etc/passwd", "js\\evil.js", "js/%2e%2e/evil.js", "js/..%2fevil.js", "js/%252e%252e/x", "js//app.js", "CSS/App.css", "a\u{0}b"])
    func signedManifestWithHostilePathIsRefused(_ hostile: String) throws {
        let fixture = try PackageFixture()
        let store = fixture.store()
        try fixture.pack(version: 1)
        let original = try #require(fixture.repoFile("packages/app/1/manifest.json"))
        // The publisher's key signed it, but the path is still refused: signatures are not sanitisers.
        let json = String(decoding: original, as: UTF8.self)
        let encoded = String(decoding: try JSONEncoder().encode(hostile), as: UTF8.self)
        let tampered = Data(json.replacingOccurrences(of: "\"data/tiny.json\"", with: encoded).utf8)
        #expect(tampered != original)
        let signature = DetachedSignature.fileData(try fixture.signer.sign(tampered))
        #expect {
            try fixture.installer(store).install(manifest: tampered, signature: signature)
        } throws: { ["invalid_path", "invalid_manifest", "path_collision"].contains(($0 as? HybridError)?.code ?? "") }
        #expect(store.activeVersion("app") == nil)
    }

    @Test func expiredManifestIsRefused() throws {
        let fixture = try PackageFixture()
        let store = fixture.store()
        try fixture.pack(version: 1, created: Date().addingTimeInterval(-7200), lifetime: 3600)
        #expect {
            try fixture.installFromDisk(version: 1, into: store)
        } throws: { ($0 as? HybridError)?.code == "expired" }
        #expect(store.activeVersion("app") == nil)
    }

    @Test func corruptOrMissingBlobIsRefusedAndDeleted() throws {
        let fixture = try PackageFixture()
        let store = fixture.store()
        try fixture.pack(version: 1)
        try fixture.installFromDisk(version: 1, into: store)
        var files = PackageFixture.sampleSite
        files["js/app.js"] = "console.log('v2')"
        let report = try fixture.pack(version: 2, files: files)
        let changed = try #require(report.manifest.file(at: try PackagePath("js/app.js")))
        try LocalBlobSource(fixture: fixture).fill(store, for: report.manifest)
        try Data("console.log('evil')".utf8).write(to: store.blobURL(changed.sha256))
        let data = try #require(fixture.repoFile("packages/app/2/manifest.json"))
        let signature = fixture.repoFile("packages/app/2/manifest.json.sig")
        #expect { try fixture.installer(store).install(manifest: data, signature: signature) } throws: { ($0 as? HybridError)?.code == "corrupt_blob" }
        #expect(!store.hasBlob(changed.sha256))
        #expect(throws: HybridError.package(.missingBlob(changed.sha256))) { try fixture.installer(store).install(manifest: data, signature: signature) }
        #expect(store.activeVersion("app") == 1)
        let staged = (try? FileManager.default.contentsOfDirectory(atPath: store.stagingDirectory("app").path)) ?? []
        #expect(staged.isEmpty)
        try LocalBlobSource(fixture: fixture).fill(store, for: report.manifest)
        #expect(try fixture.installer(store).install(manifest: data, signature: signature) == .installed(version: 2, previous: 1))
    }

    @Test(arguments: PackageInstaller.Step.allCases)
    func crashAtEachStepLeavesActiveVersionServingAndRestartCleansUp(_ step: PackageInstaller.Step) throws {
        let fixture = try PackageFixture()
        let faults = PackageFaults()
        let store = fixture.store(faults: faults)
        try fixture.pack(version: 1)
        try fixture.installFromDisk(version: 1, into: store)
        try fixture.installer(store).markLoaded("app")
        var files = PackageFixture.sampleSite
        files["index.html"] = "v2"
        try fixture.pack(version: 2, files: files)

        faults.crash(at: step)
        #expect(throws: HybridError.package(.injectedCrash(step.rawValue))) { try fixture.installFromDisk(version: 2, into: store) }
        let expected = step == .activated ? 2 : 1
        #expect(store.activeVersion("app") == expected)
        #expect(try store.activePackage("app").manifest.version == expected)

        // Restart: a fresh installer on the same store.
        let restarted = PackageStore(.init(root: fixture.storeRoot, gcGracePeriod: 0))
        try fixture.installer(restarted).recover("app")
        #expect(!FileManager.default.fileExists(atPath: restarted.stagingDirectory("app").path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: restarted.packageDirectory("app").path).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
        let versions = try FileManager.default.contentsOfDirectory(atPath: restarted.versionsDirectory("app").path).sorted()
        #expect(versions == (expected == 2 ? ["1", "2"] : ["1"]))
        #expect(try fixture.installFromDisk(version: 2, into: restarted) == (expected == 2 ? .alreadyActive(version: 2) : .installed(version: 2, previous: 1)))
    }

    @Test func diskFullDuringInstallLeavesActiveVersionServing() throws {
        let fixture = try PackageFixture()
        let faults = PackageFaults()
        let store = fixture.store(faults: faults)
        try fixture.pack(version: 1)
        try fixture.installFromDisk(version: 1, into: store)
        var files = PackageFixture.sampleSite
        files["index.html"] = String(repeating: "v2 ", count: 2000)
        try fixture.pack(version: 2, files: files)
        faults.diskFull(afterBytes: 100)
        #expect { try fixture.installFromDisk(version: 2, into: store) } throws: { ($0 as? HybridError)?.code == "disk_full" }
        faults.reset()
        faults.failWrites(toPathsContaining: "active.json")
        #expect { try fixture.installFromDisk(version: 2, into: store) } throws: { ($0 as? HybridError)?.code == "disk_full" }
        #expect(store.activeVersion("app") == 1)
        faults.reset()
        #expect(try fixture.installFromDisk(version: 2, into: store) == .installed(version: 2, previous: 1))
    }

    @Test func twoInstallersOnOneStoreDoNotCorruptIt() async throws {
        let fixture = try PackageFixture()
        for version in 1...6 {
            var files = PackageFixture.sampleSite
            files["index.html"] = "<title>v\(version)</title>"
            try fixture.pack(version: version, files: files)
        }
        let root = fixture.storeRoot
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<2 {
                group.addTask {
                    // Separate store values, as two processes would have.
                    // The default grace period: a blob another installer just wrote is not garbage.
                    let store = PackageStore(.init(root: root, lockTimeout: 10, gcGracePeriod: 600))
                    for version in stride(from: 1 + worker, through: 6, by: 2) {
                        do { try fixture.installFromDisk(version: version, into: store) } catch let error as HybridError {
                            // Losing a race to a newer version is the only acceptable failure.
                            #expect(error.code == "version_rollback", "\(error)")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let store = fixture.store()
        #expect(store.activeVersion("app") == 6)
        let manifest = try store.activePackage("app").manifest
        for file in manifest.files { #expect(store.hasBlob(file.sha256)) }
        #expect(store.state("app").highestSeen == 6)
    }
}
