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

@Suite struct PackageWriterTests {
    @Test func packWritesSignedManifestPointerAndContentAddressedBlobs() throws {
        let fixture = try PackageFixture()
        let report = try fixture.pack(version: 1)
        #expect(report.manifest.files.count == PackageFixture.sampleSite.count)
        #expect(report.blobsAdded == PackageFixture.sampleSite.count)
        #expect(report.compressedFiles >= 3)   // html, css, js pay; the tiny json and the png do not

        let manifestData = try #require(fixture.repoFile("packages/app/1/manifest.json"))
        try DetachedSignature.verify(fixture.repoFile("packages/app/1/manifest.json.sig"), of: manifestData, what: "manifest", with: fixture.verifier)
        let pointerData = try #require(fixture.repoFile("packages/app/latest.json"))
        try DetachedSignature.verify(fixture.repoFile("packages/app/latest.json.sig"), of: pointerData, what: "pointer", with: fixture.verifier)
        let pointer = try PackagePointer.decode(pointerData, expectedID: "app")
        #expect(pointer.version == 1)
        #expect(pointer.manifestSHA256 == fixture.platform.digests.sha256Hex(manifestData))

        let manifest = try PackageManifest.decode(manifestData)
        for file in manifest.files {
            let stored = try #require(fixture.repoFile(PackageRepositoryLayout.blob(file.blob)))
            #expect(fixture.platform.digests.sha256Hex(stored) == file.blob)
            let contents = try fixture.platform.decode(stored, encoding: file.encoding, expectedSize: file.size)
            #expect(String(decoding: contents, as: UTF8.self) == PackageFixture.sampleSite[file.path.value])
        }
        #expect(manifest.file(at: try PackagePath("js/app.js"))?.type == "text/javascript; charset=utf-8")
        #expect(manifest.file(at: try PackagePath("img/logo.png"))?.encoding == PackageFile.identity)
        let audit = PackageRepositoryAudit(repository: fixture.repository, platform: fixture.platform, verifier: fixture.verifier).run()
        #expect(audit.isClean, "\(audit.findings)")
        #expect(audit.manifestsChecked == 1)
    }

    @Test func repackingUnchangedFilesAddsNoBlobs() throws {
        let fixture = try PackageFixture()
        try fixture.pack(version: 1)
        var files = PackageFixture.sampleSite
        let again = try fixture.pack(version: 2, files: files)
        #expect(again.blobsAdded == 0)
        #expect(again.blobsReused == files.count)
        files["js/app.js"] = "console.log('v3')"
        let changed = try fixture.pack(version: 3, files: files)
        #expect(changed.blobsAdded == 1)
        #expect(fixture.writer().latestVersion("app") == 3)
    }

    @Test func versionsMustIncrease() throws {
        let fixture = try PackageFixture()
        try fixture.pack(version: 5)
        #expect(throws: HybridError.package(.versionNotIncreasing(offered: 5, latest: 5))) { try fixture.pack(version: 5) }
        #expect(throws: HybridError.package(.versionNotIncreasing(offered: 4, latest: 5))) { try fixture.pack(version: 4) }
    }

    @Test func collidingNamesAreRefused() throws {
        let fixture = try PackageFixture()
        var files = PackageFixture.sampleSite
        files["CSS/App.css"] = "x"
        #expect(throws: HybridError.self) { try fixture.pack(version: 1, files: files) }
        // Swift strings compare canonically, so write the NFD twin beside the NFC name by hand.
        try fixture.writeSite(PackageFixture.sampleSite.merging(["caf\u{e9}.txt": "nfc"]) { $1 })
        try Data("nfd".utf8).write(to: fixture.site.appendingPathComponent("cafe\u{301}.txt"))
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.site.path).filter { $0.hasPrefix("caf") }
        #expect(names.count == 2)
        let options = PackageWriter.Options(id: "app", version: 1, origin: "https://m.example.com/app/")
        #expect(throws: HybridError.self) { try fixture.writer().pack(fixture.site, options: options) }
    }

    @Test func hostileNamesOnDiskAreRefused() throws {
        for name in ["a\\b.js", "x%2e%2e.js", "new\nline.js"] {
            let fixture = try PackageFixture()
            var files = PackageFixture.sampleSite
            files[name] = "x"
            #expect(throws: HybridError.self, "\(name)") { try fixture.pack(version: 1, files: files) }
        }
        let fixture = try PackageFixture()
        try fixture.writeSite(PackageFixture.sampleSite)
        try FileManager.default.createSymbolicLink(atPath: fixture.site.appendingPathComponent("passwd").path, withDestinationPath: "/etc/passwd")
        let options = PackageWriter.Options(id: "app", version: 1, origin: "https://m.example.com/app/")
        #expect(throws: HybridError.self) { try fixture.writer().pack(fixture.site, options: options) }
    }

    @Test func badOptionsAreRefused() throws {
        let fixture = try PackageFixture()
        try fixture.writeSite(PackageFixture.sampleSite)
        let writer = fixture.writer()
        #expect(throws: HybridError.self) { try writer.pack(fixture.site, options: .init(id: "../x", version: 1, origin: "https://a.b/")) }
        #expect(throws: HybridError.self) { try writer.pack(fixture.site, options: .init(id: "app", version: 1, origin: "ftp://a.b/")) }
        #expect(throws: HybridError.self) { try writer.pack(fixture.site, options: .init(id: "app", version: 1, origin: "https://a.b/app")) }
        #expect(throws: HybridError.self) { try writer.pack(fixture.site, options: .init(id: "app", version: 1, origin: "https://a.b/", entry: "missing.html")) }
    }

    @Test func auditFindsCorruptMissingAndUnsignedFiles() throws {
        let fixture = try PackageFixture()
        let report = try fixture.pack(version: 1)
        let files = report.manifest.files
        let corrupt = fixture.repository.appendingPathComponent(PackageRepositoryLayout.blob(files[0].blob))
        try Data("tampered".utf8).write(to: corrupt)
        try FileManager.default.removeItem(at: fixture.repository.appendingPathComponent(PackageRepositoryLayout.blob(files[1].blob)))
        try FileManager.default.removeItem(at: fixture.repository.appendingPathComponent("packages/app/1/manifest.json.sig"))
        let audit = PackageRepositoryAudit(repository: fixture.repository, platform: fixture.platform, verifier: fixture.verifier).run()
        let codes = Set(audit.findings.map(\.error.code))
        #expect(codes.contains("missing_signature"))
        // The manifest is unverifiable, so its blobs are not checked through it.
        try Data(DetachedSignature.fileData(try fixture.signer.sign(try #require(fixture.repoFile("packages/app/1/manifest.json")))))
            .write(to: fixture.repository.appendingPathComponent("packages/app/1/manifest.json.sig"))
        let again = PackageRepositoryAudit(repository: fixture.repository, platform: fixture.platform, verifier: fixture.verifier).run()
        #expect(Set(again.findings.map(\.error.code)) == ["corrupt_blob", "missing_blob"])
        let stranger = try Ed25519Verifier(publicKey: try Ed25519Signer.generate().publicKey)
        let wrongKey = PackageRepositoryAudit(repository: fixture.repository, platform: fixture.platform, verifier: stranger).run()
        #expect(wrongKey.findings.contains { $0.error.code == "bad_signature" })
    }
}
