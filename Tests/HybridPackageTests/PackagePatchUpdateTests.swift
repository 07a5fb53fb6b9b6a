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

extension UpdateFixture {
    /// A 60 KB minified-looking script; `edit` is inserted into its middle line (a one-line change).
    static func bundle(edit: String? = nil) -> String {
        let words = ["props", "state", "children", "dispatch", "payload", "current", "value", "target"]
        var lines = (0..<600).map { index in
            let hash = (index &* 2_654_435_761) % 1_000_003
            return "function m\(index)(e,t,n){var r=n(\(hash % 997)),o=\(hash);return t.createElement(r.\(words[hash % 8]),o^\(index % 13),\"item-\(hash % 7919)\")}"
        }
        if let edit { lines[300] += edit }
        return lines.joined(separator: "\n")
    }

    /// The 12-file site plus `js/bundle.js`, which changes by one line in every version after the first.
    static func patchSite(version: Int) -> [String: String] {
        var files = site(version: 1)
        files["js/bundle.js"] = bundle(edit: version == 1 ? nil : "if(e==null)return t;/*v\(version)*/")
        return files
    }

    /// Re-signs version `version`'s manifest after `change` (as a publisher with a bug, or with its
    /// key, could), rewriting its compressed copy and the pointer.
    func republish(version: Int, _ change: (inout PackageManifest) throws -> Void) throws {
        let url = repository.appendingPathComponent(PackageRepositoryLayout.manifest(id: "app", version: version))
        var manifest = try PackageManifest.decode(try Data(contentsOf: url))
        try change(&manifest)
        try PackageWriter(repository: repository, platform: platform, signer: signer).publish(manifest)
    }

    /// An updater on a store of its own under `name`, with `platform`.
    func updater(store name: String, platform: PackagePlatform? = nil) -> PackageUpdater {
        let store = PackageStore(.init(root: root.appendingPathComponent(name), lockTimeout: 10, gcGracePeriod: 0))
        return PackageUpdater(repository: server.url, installer: PackageInstaller(store: store, platform: platform ?? self.platform, verifier: verifier),
                              parallelDownloads: 3, timeout: 10)
    }

    func contents(of path: String, in store: PackageStore? = nil) throws -> String {
        let package = try (store ?? self.store).activePackage("app")
        let file = try #require(package.manifest.file(at: try PackagePath(path)))
        return String(decoding: try Data(contentsOf: package.contentsURL(of: file)), as: UTF8.self)
    }

    /// Files an interrupted write could leave in the store's blob directory.
    func leftoverTemporaries() -> [String] {
        let blobs = store.blobsDirectory
        let enumerator = FileManager.default.enumerator(atPath: blobs.path)
        return (enumerator?.allObjects as? [String] ?? []).filter { $0.contains(".tmp-") }
    }
}

/// Byte-level patches over real HTTP: the cheap way when it works, the full blob whenever any part
/// of it does not, and never a partial file.
@Suite(.serialized) struct PackagePatchUpdateTests {
    /// Installs version 1, publishes version 2 (one line of `js/bundle.js` changed).
    /// - Returns: version 2's bundle entry.
    func installOneThenPublishTwo(_ fixture: UpdateFixture) async throws -> PackageFile {
        try fixture.publish(version: 1, files: UpdateFixture.patchSite(version: 1))
        _ = try await fixture.updater.update("app")
        let v2 = try fixture.publish(version: 2, files: UpdateFixture.patchSite(version: 2))
        fixture.server.resetLog()
        return try #require(v2.manifest.file(at: try PackagePath("js/bundle.js")))
    }

    func bundleReport(_ report: PackageUpdater.Report) throws -> PackageUpdater.FileReport {
        try #require(report.files.first { $0.path == "js/bundle.js" })
    }

    @Test func oneLineChangeArrivesAsAPatchAndTheReportSaysSo() async throws {
        let fixture = try UpdateFixture()
        let bundle = try await installOneThenPublishTwo(fixture)
        let patch = try #require(bundle.patches?.first)
        #expect(bundle.patches?.count == 1)
        #expect(patch.size < 200 && bundle.storedSize > 5_000, "patch \(patch.size) B, full blob \(bundle.storedSize) B")

        let report = try await fixture.updater.update("app")
        #expect(report.outcome == .installed(version: 2, previous: 1))
        let file = try bundleReport(report)
        #expect(file.way == .patch)
        #expect(file.bytesFetched == Int64(patch.size))
        #expect(file.fullBytes == Int64(bundle.storedSize))
        #expect(file.fallbacks.isEmpty)
        #expect(report.files.filter { $0.path != "js/bundle.js" }.allSatisfy { $0.way == .installed && $0.bytesFetched == 0 })
        #expect(report.files.count == 13)
        #expect(report.patchesApplied == 1 && report.blobsFetched == 0)
        #expect(report.bytesFetched == Int64(patch.size))
        #expect(fixture.server.blobRequests == [PackageRepositoryLayout.blob(patch.blob)])
        // What the other ways would have cost: file level = documents + the bundle's full blob.
        #expect(report.fileLevelBytes == report.documentBytes + Int64(bundle.storedSize))
        #expect(report.fullUpdateBytes > report.fileLevelBytes && report.fileLevelBytes > report.totalBytes)
        #expect(report.duration > 0)
        #expect(try fixture.contents(of: "js/bundle.js") == UpdateFixture.patchSite(version: 2)["js/bundle.js"])
    }

    /// Each way a patch can be bad on the server: the update still lands, by the full blob.
    @Test(arguments: ["corrupt", "truncated", "missing", "oversized"])
    func badPatchOnTheServerFallsBackToTheFullBlob(_ fault: String) async throws {
        let fixture = try UpdateFixture()
        let bundle = try await installOneThenPublishTwo(fixture)
        let patch = try #require(bundle.patches?.first)
        let patchPath = PackageRepositoryLayout.blob(patch.blob)
        let real = try Data(contentsOf: fixture.repository.appendingPathComponent(patchPath))
        fixture.server.inject { path, _ in
            guard path == patchPath else { return nil }
            switch fault {
            case "corrupt":
                var bytes = real
                bytes[bytes.count / 2] ^= 0xFF
                return ServerResponse(body: bytes)
            case "truncated": return ServerResponse(body: real.prefix(real.count - 10))
            case "oversized": return ServerResponse(body: real + Data(repeating: 0, count: 4096))
            default: return .status(404)
            }
        }
        let report = try await fixture.updater.update("app")
        #expect(report.outcome == .installed(version: 2, previous: 1))
        let file = try bundleReport(report)
        #expect(file.way == .full)
        #expect(file.fallbacks.count == 1)
        let expectedCode = fault == "missing" ? "missing_blob" : fault == "oversized" ? "too_large" : "bad_patch"
        #expect(file.fallbacks.first?.hasPrefix(expectedCode + ":") == true, "\(file.fallbacks)")
        #expect(fixture.server.blobRequests == [patchPath, PackageRepositoryLayout.blob(bundle.blob)])
        #expect(try fixture.contents(of: "js/bundle.js") == UpdateFixture.patchSite(version: 2)["js/bundle.js"])
        #expect(fixture.leftoverTemporaries().isEmpty)
    }

    @Test func patchNamingAnotherBaseIsNotAppliedToTheWrongFile() async throws {
        // The signed manifest (a publisher bug) says the patch applies to index.html, which the
        // client holds; the patch's own header names the old bundle. Refused before decoding.
        let fixture = try UpdateFixture()
        _ = try await installOneThenPublishTwo(fixture)
        let index = try #require(try fixture.store.activePackage("app").manifest.file(at: try PackagePath("index.html")))
        try fixture.republish(version: 2) { manifest in
            let at = try #require(manifest.files.firstIndex { $0.path.value == "js/bundle.js" })
            manifest.files[at].patches?[0].base = index.sha256
        }
        let report = try await fixture.updater.update("app")
        let file = try bundleReport(report)
        #expect(file.way == .full)
        #expect(file.fallbacks.first?.contains("bad_patch") == true && file.fallbacks.first?.contains("names base") == true, "\(file.fallbacks)")
        #expect(try fixture.contents(of: "js/bundle.js") == UpdateFixture.patchSite(version: 2)["js/bundle.js"])
    }

    @Test func patchWhoseResultMismatchesTheManifestLeavesNoPartialFile() async throws {
        let fixture = try UpdateFixture()
        let bundle = try await installOneThenPublishTwo(fixture)
        // A well-formed patch from the right base, listed with its true size and SHA-256, that makes
        // other bytes than the manifest's: the result must be refused, not stored.
        let v1Bundle = Data(UpdateFixture.patchSite(version: 1)["js/bundle.js"]!.utf8)
        let wrong = Data(UpdateFixture.bundle(edit: "if(e!=null)return t;/*v2*/").utf8)   // version 2's size, other bytes
        let codec = try #require(fixture.platform.delta)
        let evil = try #require(DeltaPatch.make(from: v1Bundle, to: wrong, codec: codec, digests: fixture.platform.digests))
        let evilName = fixture.platform.digests.sha256Hex(evil)
        let evilPath = PackageRepositoryLayout.blob(evilName)
        try FileManager.default.createDirectory(at: fixture.repository.appendingPathComponent(evilPath).deletingLastPathComponent(),
                                                withIntermediateDirectories: true)
        try evil.write(to: fixture.repository.appendingPathComponent(evilPath))
        try fixture.republish(version: 2) { manifest in
            let at = try #require(manifest.files.firstIndex { $0.path.value == "js/bundle.js" })
            manifest.files[at].patches = [PackagePatch(base: fixture.platform.digests.sha256Hex(v1Bundle), blob: evilName, size: evil.count)]
        }
        // The full blob is unreachable too: the update fails, and leaves nothing half-made behind.
        let fullPath = PackageRepositoryLayout.blob(bundle.blob)
        fixture.server.inject { path, _ in path == fullPath ? .status(500) : nil }
        await #expect(throws: HybridError.self) { _ = try await fixture.updater.update("app") }
        #expect(!fixture.store.hasBlob(bundle.sha256))
        #expect(!fixture.store.hasBlob(fixture.platform.digests.sha256Hex(wrong)))
        #expect(fixture.leftoverTemporaries().isEmpty)
        #expect(fixture.store.activeVersion("app") == 1)
        #expect(try fixture.contents(of: "js/bundle.js") == UpdateFixture.patchSite(version: 1)["js/bundle.js"])

        fixture.server.inject(nil)
        let report = try await fixture.updater.update("app")
        let file = try bundleReport(report)
        #expect(file.way == .full)
        #expect(file.bytesFetched == Int64(evil.count + bundle.storedSize))
        #expect(file.fallbacks.first?.contains("result SHA-256") == true, "\(file.fallbacks)")
        #expect(try fixture.contents(of: "js/bundle.js") == UpdateFixture.patchSite(version: 2)["js/bundle.js"])
    }

    @Test func withoutABaseOrACodecTheFullBlobIsFetchedWithoutTryingAPatch() async throws {
        let fixture = try UpdateFixture()
        try fixture.publish(version: 1, files: UpdateFixture.patchSite(version: 1))
        // A platform without a delta codec (an Apple build without zstd), holding the base.
        let noCodec = fixture.updater(store: "nocodec", platform: PackagePlatform(digests: fixture.platform.digests,
                                                                                  compressor: fixture.platform.compressor))
        _ = try await noCodec.update("app")
        let v2 = try fixture.publish(version: 2, files: UpdateFixture.patchSite(version: 2))
        let bundle = try #require(v2.manifest.file(at: try PackagePath("js/bundle.js")))
        let patchPath = PackageRepositoryLayout.blob(try #require(bundle.patches?.first).blob)
        fixture.server.resetLog()
        let withoutCodec = try await noCodec.update("app")
        #expect(try bundleReport(withoutCodec).way == .full)
        #expect(try bundleReport(withoutCodec).fallbacks.isEmpty)
        // A fresh store holds no base.
        let fresh = try await fixture.updater(store: "fresh").update("app")
        #expect(try bundleReport(fresh).way == .full)
        #expect(try bundleReport(fresh).fallbacks.isEmpty)
        #expect(!fixture.server.blobRequests.contains(patchPath))
    }

    @Test func patchesReachBackThePatchDepthAndPruneKeepsWhatRetainedVersionsNeed() async throws {
        let fixture = try UpdateFixture()
        var shas: [Int: String] = [:]
        func publish(_ version: Int) throws {
            let report = try fixture.publish(version: version, files: UpdateFixture.patchSite(version: version))
            shas[version] = try #require(report.manifest.file(at: try PackagePath("js/bundle.js"))).sha256
        }
        try publish(1)
        let old = fixture.updater(store: "old")
        _ = try await old.update("app")                  // a client left on version 1
        for version in 2...4 { try publish(version) }
        let recent = fixture.updater(store: "recent")
        _ = try await recent.update("app")               // a client on version 4
        try publish(5)

        // Version 5's bundle has a patch from each of the last 3 versions' contents, none from version 1;
        // unchanged files have none.
        let v5 = try PackageManifest.decode(try Data(contentsOf: fixture.repository.appendingPathComponent("packages/app/5/manifest.json")))
        let bundle = try #require(v5.file(at: try PackagePath("js/bundle.js")))
        #expect(Set(bundle.patches?.map(\.base) ?? []) == [shas[4]!, shas[3]!, shas[2]!])
        #expect(v5.files.filter { $0.path.value != "js/bundle.js" }.allSatisfy { $0.patches == nil })

        let pruner = PackageRepositoryPruner(repository: fixture.repository, keep: 2)
        let dry = try pruner.run(dryRun: true)
        #expect(FileManager.default.fileExists(atPath: fixture.repository.appendingPathComponent("packages/app/1/manifest.json").path))
        let pruned = try pruner.run()
        #expect(pruned == dry)
        #expect(pruned.retained == ["app": [4, 5]])
        #expect(pruned.removedVersions == ["app": [1, 2, 3]])
        // Versions 1–3's bundle blobs and version 2–4's patches go; what 4 and 5 list stays.
        #expect(pruned.removedBlobs >= 3)
        #expect(!FileManager.default.fileExists(atPath: fixture.repository.appendingPathComponent("packages/app/1").path))
        let audit = PackageRepositoryAudit(repository: fixture.repository, platform: fixture.platform, verifier: fixture.verifier).run()
        #expect(audit.isClean, "\(audit.findings)")
        #expect(audit.patchesChecked == 3 + 3)

        // The client on version 4 patches; the one on version 1, older than the window, gets full blobs.
        let fromFour = try await recent.update("app")
        #expect(try bundleReport(fromFour).way == .patch)
        #expect(try bundleReport(fromFour).patchBase == shas[4])
        let fromOne = try await old.update("app")
        #expect(fromOne.outcome == .installed(version: 5, previous: 1))
        #expect(try bundleReport(fromOne).way == .full)
        #expect(try fixture.contents(of: "js/bundle.js", in: old.installer.store) == UpdateFixture.patchSite(version: 5)["js/bundle.js"])
    }

    @Test func aSwappedCompressedManifestIsIgnoredForTheSignedOne() async throws {
        let fixture = try UpdateFixture()
        _ = try await installOneThenPublishTwo(fixture)
        let v1Compressed = try Data(contentsOf: fixture.repository.appendingPathComponent("packages/app/1/manifest.json.zlib"))
        fixture.server.inject { path, _ in path == "packages/app/2/manifest.json.zlib" ? ServerResponse(body: v1Compressed) : nil }
        let report = try await fixture.updater.update("app")
        #expect(report.outcome == .installed(version: 2, previous: 1))
        #expect(fixture.server.requests.map(\.path).contains("packages/app/2/manifest.json"))
    }
}
