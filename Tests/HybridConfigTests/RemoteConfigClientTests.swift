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

@Suite("Remote config client: signatures, versions, expiry, cache")
struct RemoteConfigClientTests {
    let url = URL(string: "https://m.example.com/app/index.html")!

    @Test func withNoConfigEveryPageGetsSafeDefaults() throws {
        let fixture = try ConfigFixture()
        defer { fixture.cleanUp() }
        let decision = fixture.client().features(for: url)
        #expect(decision.source == .noConfig)
        #expect(decision.features == .safeDefaults)
    }

    @Test func acceptsASignedDocumentAndCachesIt() throws {
        let fixture = try ConfigFixture()
        defer { fixture.cleanUp() }
        let (document, signature) = try fixture.signed(try ConfigFixture.document(version: 3))
        let client = fixture.client()
        #expect(try client.accept(document: document, signature: signature) == .updated(from: nil, to: 3))
        #expect(client.features(for: url).ruleID == "app")
        #expect(try client.accept(document: document, signature: signature) == .unchanged(3))
        // A fresh start, offline: the cache answers.
        let restarted = fixture.client()
        #expect(restarted.config?.version == 3)
        #expect(restarted.features(for: url).features.offlinePackage == "app")
    }

    @Test func refusesBadAndMissingSignatures() throws {
        let fixture = try ConfigFixture()
        defer { fixture.cleanUp() }
        let client = fixture.client()
        let (document, signature) = try fixture.signed(try ConfigFixture.document(version: 2))
        var tampered = document
        tampered[tampered.count / 2] ^= 0x20
        let other = try ConfigFixture()
        defer { other.cleanUp() }
        let foreign = try other.signed(try ConfigFixture.document(version: 2)).signature
        let cases: [(Data, Data?, String)] = [
            (document, nil, "missing_signature"),
            (document, Data(), "missing_signature"),
            (tampered, signature, "bad_signature"),
            (document, foreign, "bad_signature"),
            (document, Data("not base64!\n".utf8), "bad_signature"),
            (document, Data((Data(count: 64).base64EncodedString() + "\n").utf8), "bad_signature"),
        ]
        for (body, sig, code) in cases {
            #expect { try client.accept(document: body, signature: sig) } throws: { ($0 as? HybridError)?.code == code }
        }
        #expect(client.config == nil)
        #expect(client.features(for: url).source == .noConfig)
    }

    @Test func refusesDowngradesAndReusedVersions() throws {
        let fixture = try ConfigFixture()
        defer { fixture.cleanUp() }
        let client = fixture.client()
        let v5 = try fixture.signed(try ConfigFixture.document(version: 5))
        try client.accept(document: v5.document, signature: v5.signature)
        let v4 = try fixture.signed(try ConfigFixture.document(version: 4))
        #expect { try client.accept(document: v4.document, signature: v4.signature) } throws: {
            ($0 as? HybridError) == .config(.versionRollback(offered: 4, current: 5))
        }
        let v5b = try fixture.signed(try ConfigFixture.document(version: 5, killSwitch: true))
        #expect { try client.accept(document: v5b.document, signature: v5b.signature) } throws: { ($0 as? HybridError)?.code == "version_reused" }
        #expect(client.config?.version == 5 && client.config?.killSwitch == false)
        // The floor survives a restart: the cache holds version 5.
        #expect { try fixture.client().accept(document: v4.document, signature: v4.signature) } throws: {
            ($0 as? HybridError)?.code == "version_rollback"
        }
        let v6 = try fixture.signed(try ConfigFixture.document(version: 6, killSwitch: true))
        #expect(try client.accept(document: v6.document, signature: v6.signature) == .updated(from: 5, to: 6))
        #expect(client.features(for: url).source == .killSwitch)
    }

    @Test func refusesExpiredDocumentsAndStopsUsingOnesThatExpire() throws {
        let fixture = try ConfigFixture()
        defer { fixture.cleanUp() }
        let old = try fixture.signed(try ConfigFixture.document(version: 1, lifetime: 30))
        #expect { try fixture.client(now: ConfigFixture.epoch.addingTimeInterval(31)).accept(document: old.document, signature: old.signature) } throws: {
            ($0 as? HybridError)?.code == "expired"
        }
        // Accepted while fresh; the same client's clock then passes its expiry.
        let clock = Clock(ConfigFixture.epoch.addingTimeInterval(10))
        let options = fixture.client().options
        let client = RemoteConfigClient(options: options, verifier: fixture.verifier, now: { clock.now })
        try client.accept(document: old.document, signature: old.signature)
        #expect(client.features(for: url).ruleID == "app")
        clock.now = ConfigFixture.epoch.addingTimeInterval(31)
        #expect(client.features(for: url).source == .expired(version: 1))
        #expect(client.features(for: url).features == .safeDefaults)
        // An expired cache is not used, but still refuses older versions after a restart.
        let restarted = RemoteConfigClient(options: options, verifier: fixture.verifier, now: { clock.now })
        #expect(restarted.features(for: url).source == .expired(version: 1))
    }

    @Test func aTamperedOrTornCacheIsIgnored() throws {
        let fixture = try ConfigFixture()
        defer { fixture.cleanUp() }
        let client = fixture.client()
        let signed = try fixture.signed(try ConfigFixture.document(version: 2))
        try client.accept(document: signed.document, signature: signed.signature)
        let cache = client.options.cache
        // Someone edits the cached rules on disk: the signature no longer verifies.
        var entry = try JSONSerialization.jsonObject(with: Data(contentsOf: cache.file)) as! [String: String]
        var document = Data(base64Encoded: entry["document"]!)!
        document[document.count / 3] ^= 0x01
        entry["document"] = document.base64EncodedString()
        try JSONSerialization.data(withJSONObject: entry).write(to: cache.file)
        #expect(fixture.client().config == nil)
        // Half a file (a crash mid-write without the rename) is ignored too.
        try Data("{\"document\":\"eyJ".utf8).write(to: cache.file)
        #expect(fixture.client().features(for: url).source == .noConfig)
        // No temporary files are left behind by successful writes.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: cache.directory.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test func installIDIsCreatedOnceAndKept() throws {
        let fixture = try ConfigFixture()
        defer { fixture.cleanUp() }
        let cache = RemoteConfigCache(directory: fixture.directory.appendingPathComponent("ids"))
        let first = try cache.installID()
        #expect(!first.isEmpty)
        #expect(try cache.installID() == first)
        #expect(try RemoteConfigCache(directory: cache.directory).installID() == first)
    }

    @Test func refreshFailureKeepsTheHeldDocument() async throws {
        let fixture = try ConfigFixture()
        defer { fixture.cleanUp() }
        let signed = try fixture.signed(try ConfigFixture.document(version: 2))
        let client = fixture.client()   // its repository is a closed port
        try client.accept(document: signed.document, signature: signed.signature)
        await #expect { try await client.refresh() } throws: { ($0 as? HybridError)?.code == "download_failed" }
        #expect(client.config?.version == 2)
    }
}

/// A settable clock shared with a client's `now` closure.
final class Clock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Date
    init(_ value: Date) { self.value = value }
    var now: Date {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
