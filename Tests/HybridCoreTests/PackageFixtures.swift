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
import HybridCrypto

/// A temporary directory removed when the fixture is released, plus a signing key and a small
/// site to pack: what every package test starts from.
final class PackageFixture: Sendable {
    let root: URL
    let signer: Ed25519Signer
    let verifier: Ed25519Verifier
    let platform = PackagePlatform.native

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("hk-pkg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        signer = try Ed25519Signer.generate()
        verifier = try Ed25519Verifier(publicKey: signer.publicKey)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    var site: URL { root.appendingPathComponent("site") }
    var repository: URL { root.appendingPathComponent("repo") }
    var storeRoot: URL { root.appendingPathComponent("store") }

    /// Writes `files` (path → contents) under `site`, replacing what was there.
    func writeSite(_ files: [String: String]) throws {
        try? FileManager.default.removeItem(at: site)
        for (path, contents) in files {
            let url = site.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: url)
        }
    }

    static let sampleSite: [String: String] = [
        "index.html": "<!doctype html><title>v1</title><link rel=stylesheet href=css/app.css><script src=js/app.js></script>"
            + String(repeating: "<p>hello offline world</p>\n", count: 40),
        "css/app.css": String(repeating: "body { color: #123456; margin: 0 }\n", count: 30),
        "js/app.js": String(repeating: "console.log('app');\n", count: 50),
        "img/logo.png": "\u{89}PNG not really an image",
        "data/tiny.json": "{}",
    ]

    func writer() -> PackageWriter { PackageWriter(repository: repository, platform: platform, signer: signer) }

    @discardableResult
    func pack(version: Int, files: [String: String] = PackageFixture.sampleSite, id: String = "app",
              created: Date = Date(), lifetime: TimeInterval = 86_400, csp: String? = nil, spa: Bool = false) throws -> PackageWriter.Report {
        try writeSite(files)
        let options = PackageWriter.Options(id: id, version: version, origin: "https://m.example.com/app/", entry: "index.html",
                                            spaFallback: spa, contentSecurityPolicy: csp, created: created, lifetime: lifetime)
        return try writer().pack(site, options: options)
    }

    func store(faults: PackageFaults? = nil, gracePeriod: TimeInterval = 0) -> PackageStore {
        PackageStore(.init(root: storeRoot, lockTimeout: 5, gcGracePeriod: gracePeriod, faults: faults))
    }

    func installer(_ store: PackageStore) -> PackageInstaller {
        PackageInstaller(store: store, platform: platform, verifier: verifier)
    }

    func repoFile(_ path: String) -> Data? { FileManager.default.contents(atPath: repository.appendingPathComponent(path).path) }

    /// Installs `version` from the repository on disk (blobs copied as an updater would fetch them).
    @discardableResult
    func installFromDisk(version: Int, into store: PackageStore, id: String = "app") throws -> PackageInstaller.Outcome {
        let path = PackageRepositoryLayout.manifest(id: id, version: version)
        let data = try #require(repoFile(path))
        let manifest = try PackageManifest.decode(data)
        try LocalBlobSource(fixture: self).fill(store, for: manifest)
        return try installer(store).install(manifest: data, signature: repoFile(path + ".sig"))
    }
}

/// Copies blobs from the fixture's repository into a store, decoding them: the updater's job
/// without HTTP, for installer tests.
struct LocalBlobSource {
    let fixture: PackageFixture

    func fill(_ store: PackageStore, for manifest: PackageManifest) throws {
        for file in manifest.files where !store.hasBlob(file.sha256) {
            let stored = try #require(fixture.repoFile(PackageRepositoryLayout.blob(file.blob)))
            let contents = try fixture.platform.decode(stored, encoding: file.encoding, expectedSize: file.size)
            try store.writeBlob(contents, sha256: file.sha256)
        }
    }
}
