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

/// Key rotation over real HTTP: the pointer announces it, the updater fetches and checks it, and
/// the store remembers it.
@Suite(.serialized) struct KeyRotationUpdateTests {
    func client(_ fixture: UpdateFixture, state: String = "store/state/keys.json") -> (keys: TrustedKeySet, updater: PackageUpdater) {
        let keys = TrustedKeySet.ed25519(roots: [TrustedKey(publicKey: fixture.signer.publicKey)],
                                         stateURL: fixture.root.appendingPathComponent(state))
        let installer = PackageInstaller(store: fixture.store, platform: fixture.platform, verifier: keys)
        return (keys, PackageUpdater(repository: fixture.server.url, installer: installer, timeout: 10))
    }

    func pack(_ fixture: UpdateFixture, version: Int, signer: Ed25519Signer) throws -> PackageWriter.Report {
        let site = fixture.root.appendingPathComponent("site-\(version)")
        for (path, contents) in UpdateFixture.site(version: version, changed: 1) {
            let url = site.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: url)
        }
        return try PackageWriter(repository: fixture.repository, platform: fixture.platform, signer: signer)
            .pack(site, options: .init(id: "app", version: version, origin: "https://m.example.com/app/"))
    }

    @Test func aClientFollowsARotationThePointerAnnouncesAndRemembersIt() async throws {
        let fixture = try UpdateFixture()
        let root = fixture.signer, next = try Ed25519Signer.generate()
        _ = try pack(fixture, version: 1, signer: root)
        let (keys, updater) = client(fixture)
        _ = try await updater.update("app")

        try KeyRotation.make(sequence: 1, from: root, to: next, successorValidity: (nil, nil), overlap: 7 * 86_400, revoke: false).write(into: fixture.repository)
        // The publisher can no longer sign with the key it rotated away from.
        let refused = #expect(throws: HybridError.self) { _ = try pack(fixture, version: 2, signer: root) }
        #expect(refused?.code == "invalid_key")
        _ = try pack(fixture, version: 2, signer: next)
        let pointer = try PackagePointer.decode(try Data(contentsOf: fixture.repository.appendingPathComponent("packages/app/latest.json")))
        #expect(pointer.keySequence == 1)

        fixture.server.resetLog()
        let report = try await updater.update("app")
        #expect(report.outcome == .installed(version: 2, previous: 1))
        #expect(keys.sequence == 1)
        #expect(keys.currentKeys == [next.publicKey])
        let asked = fixture.server.requests.map(\.path)
        #expect(asked.contains("keys/rotation-1.json") && asked.contains("keys/rotation-1.json.sig") && asked.contains("keys/rotation-1.json.next.sig"))

        // A restarted app replays the saved rotation and does not fetch it again.
        let (restarted, again) = client(fixture)
        #expect(restarted.sequence == 1)
        fixture.server.resetLog()
        #expect(try await again.update("app").upToDate)
        #expect(!fixture.server.requests.map(\.path).contains("keys/rotation-1.json"))
        // A fresh install that only knows the root key follows the chain too.
        let fresh = PackageUpdater(repository: fixture.server.url, installer: PackageInstaller(
            store: PackageStore(root: fixture.root.appendingPathComponent("fresh")), platform: fixture.platform,
            verifier: TrustedKeySet.ed25519(roots: [TrustedKey(publicKey: root.publicKey)])), timeout: 10)
        #expect(try await fresh.update("app").outcome == .installed(version: 2, previous: nil))
        // `hybrid verify` with the root key follows it as well.
        let audit = PackageRepositoryAudit(repository: fixture.repository, platform: fixture.platform, verifier: {
            let set = TrustedKeySet.ed25519(roots: [TrustedKey(publicKey: root.publicKey)])
            for rotation in try! KeyRotation.Signed.chain(in: fixture.repository) { try! set.apply(rotation) }
            return set
        }()).run()
        #expect(audit.isClean, "\(audit.findings)")
    }

    /// The writer itself (not only `hybrid pack`) refuses a key whose window the last rotation closed.
    @Test func theWriterRefusesToSignWithAnExpiredSuccessor() throws {
        let fixture = try UpdateFixture()
        let root = fixture.signer, next = try Ed25519Signer.generate()
        _ = try pack(fixture, version: 1, signer: root)
        try KeyRotation.make(sequence: 1, from: root, to: next, successorValidity: (nil, Date().addingTimeInterval(-60)),
                             overlap: 0, revoke: false).write(into: fixture.repository)
        let refused = #expect(throws: HybridError.self) { _ = try pack(fixture, version: 2, signer: next) }
        #expect(refused?.code == "key_expired")
        let pointer = try PackagePointer.decode(try Data(contentsOf: fixture.repository.appendingPathComponent("packages/app/latest.json")))
        #expect(pointer.version == 1)
    }

    @Test func aRotationSignedByTheWrongKeyIsRefusedAndTheActiveVersionKeepsServing() async throws {
        let fixture = try UpdateFixture()
        _ = try pack(fixture, version: 1, signer: fixture.signer)
        let (keys, updater) = client(fixture)
        _ = try await updater.update("app")
        // Someone who controls the repository but not the key rotates "trust" to their own key.
        let stranger = try Ed25519Signer.generate(), thief = try Ed25519Signer.generate()
        try KeyRotation.make(sequence: 1, from: stranger, to: thief, successorValidity: (nil, nil), overlap: 0, revoke: false).write(into: fixture.repository)
        _ = try pack(fixture, version: 2, signer: thief)
        let error = await #expect(throws: HybridError.self) { _ = try await updater.update("app") }
        #expect(error?.code == "bad_rotation")
        #expect(keys.sequence == 0)
        #expect(fixture.store.activeVersion("app") == 1)
    }

    @Test func afterTheOverlapThePreviousKeyIsRefusedAsExpired() async throws {
        let fixture = try UpdateFixture()
        let root = fixture.signer, next = try Ed25519Signer.generate()
        _ = try pack(fixture, version: 1, signer: root)
        let (_, updater) = client(fixture)
        _ = try await updater.update("app")
        try KeyRotation.make(sequence: 1, from: root, to: next, successorValidity: (nil, nil), overlap: 86_400, revoke: false).write(into: fixture.repository)
        let v2 = try pack(fixture, version: 2, signer: next)
        _ = try await updater.update("app")
        // Version 3 signed with the old key (a stale build machine), seen two days later.
        var manifest = v2.manifest
        manifest.version = 3
        try PackageWriter(repository: fixture.repository, platform: fixture.platform, signer: root).publish(manifest)
        let error = await #expect(throws: HybridError.self) { _ = try await updater.update("app", now: Date().addingTimeInterval(2 * 86_400)) }
        #expect(error?.code == "key_expired")
        #expect(fixture.store.activeVersion("app") == 2)
    }
}
