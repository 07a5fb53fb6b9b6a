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

/// Signing keys that can change: validity windows, revocation, and TUF-style rotation.
@Suite struct TrustedKeySetTests {
    let message = Data("a pointer".utf8)
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let day: TimeInterval = 86_400

    func code(_ body: () throws -> Void) -> String? {
        do { try body(); return nil } catch { return (error as? HybridError)?.code ?? "\(error)" }
    }

    @Test func aKeyVerifiesOnlyInsideItsWindowWithATypedRefusalOutside() throws {
        let key = try Ed25519Signer.generate()
        let keys = TrustedKeySet.ed25519(roots: [TrustedKey(publicKey: key.publicKey, validFrom: t0, validUntil: t0 + 30 * day)])
        let signature = try key.sign(message)
        #expect(code { try keys.verify(signature, of: message, what: "pointer", at: t0 + day) } == nil)
        #expect(code { try keys.verify(signature, of: message, what: "pointer", at: t0 + 31 * day) } == "key_expired")
        #expect(code { try keys.verify(signature, of: message, what: "pointer", at: t0 - day) } == "key_not_yet_valid")
        #expect(code { try keys.verify(signature, of: Data("another".utf8), what: "pointer", at: t0 + day) } == "bad_signature")
        let stranger = try Ed25519Signer.generate()
        #expect(code { try keys.verify(try stranger.sign(message), of: message, what: "pointer", at: t0 + day) } == "bad_signature")
        // The expiry error names the key and the instant, and reaches DetachedSignature's callers.
        let error = #expect(throws: HybridError.self) {
            try DetachedSignature.verify(DetachedSignature.fileData(signature), of: message, what: "manifest", with: keys, at: t0 + 31 * day)
        }
        #expect(error == .package(.keyExpired(key: TrustedKey(publicKey: key.publicKey).fingerprint, until: t0 + 30 * day)))
    }

    @Test func aKeyTheAppRevokedIsRefusedAsRevoked() throws {
        let key = try Ed25519Signer.generate()
        let keys = TrustedKeySet.ed25519(roots: [TrustedKey(publicKey: key.publicKey)], revoked: [key.publicKey])
        #expect(code { try keys.verify(try key.sign(message), of: message, what: "pointer", at: t0) } == "key_revoked")
        #expect(!keys.isValidSignature(try key.sign(message), of: message))
    }

    @Test func rotationSignedByTheCurrentKeyMovesTrustWithAnOverlap() throws {
        let root = try Ed25519Signer.generate(), next = try Ed25519Signer.generate()
        let keys = TrustedKeySet.ed25519(roots: [TrustedKey(publicKey: root.publicKey)])
        #expect(code { try keys.verify(try next.sign(message), of: message, what: "pointer", at: t0) } == "bad_signature")
        try keys.apply(try KeyRotation.make(sequence: 1, from: root, to: next, successorValidity: (nil, nil), overlap: 7 * day, revoke: false, now: t0))
        #expect(keys.sequence == 1)
        #expect(keys.currentKeys == [next.publicKey])
        #expect(code { try keys.verify(try next.sign(message), of: message, what: "pointer", at: t0 + day) } == nil)
        // The old key overlaps for a week, then is expired.
        #expect(code { try keys.verify(try root.sign(message), of: message, what: "pointer", at: t0 + 6 * day) } == nil)
        #expect(code { try keys.verify(try root.sign(message), of: message, what: "pointer", at: t0 + 8 * day) } == "key_expired")
    }

    @Test func rotationRevokingALeakedKeyRefusesItAtOnceAndItCanSignNoMoreRotations() throws {
        let root = try Ed25519Signer.generate(), next = try Ed25519Signer.generate(), thief = try Ed25519Signer.generate()
        let keys = TrustedKeySet.ed25519(roots: [TrustedKey(publicKey: root.publicKey)])
        try keys.apply(try KeyRotation.make(sequence: 1, from: root, to: next, successorValidity: (nil, nil), overlap: 7 * day, revoke: true, now: t0))
        #expect(code { try keys.verify(try root.sign(message), of: message, what: "pointer", at: t0 + 1) } == "key_revoked")
        // Whoever holds the leaked key cannot rotate trust to their own key.
        let hijack = try KeyRotation.make(sequence: 2, from: root, to: thief, successorValidity: (nil, nil), overlap: 0, revoke: false, now: t0)
        #expect(code { try keys.apply(hijack) } == "bad_rotation")
        #expect(keys.currentKeys == [next.publicKey])
    }

    /// Dates are four-digit years that encode back as the same instant: a 98-digit year decoded
    /// to an instant that encoded as another (found by the key-rotation fuzz target's round trip).
    @Test func aDateWithAnAbsurdYearMakesTheStatementMalformed() throws {
        let good = #"{"created":"2026-12-03T13:40:51Z","format":1,"next":{"publicKey":"gTl2Dqh9F19Wo1Rmw0x+zMuNipG07jeiXfYPW4/Js5Q="},"previous":"iojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w=","previousValidUntil":"YEAR-12-10T13:40:51Z","revokesPrevious":false,"sequence":1}"#
        let rotation = try KeyRotation.decode(Data(good.replacingOccurrences(of: "YEAR", with: "2026").utf8))
        #expect(try KeyRotation.decode(rotation.encoded()) == rotation)
        for year in [String(repeating: "3", count: 98), "20260", "26"] {
            #expect(throws: HybridError.self) { try KeyRotation.decode(Data(good.replacingOccurrences(of: "YEAR", with: year).utf8)) }
        }
    }

    @Test func rotationsSignedByTheWrongKeyOrOutOfOrderAreRefused() throws {
        let root = try Ed25519Signer.generate(), next = try Ed25519Signer.generate(), third = try Ed25519Signer.generate()
        let stranger = try Ed25519Signer.generate()
        let keys = TrustedKeySet.ed25519(roots: [TrustedKey(publicKey: root.publicKey)])
        let good = try KeyRotation.make(sequence: 1, from: root, to: next, successorValidity: (nil, nil), overlap: day, revoke: false, now: t0)

        // Signed by a stranger who claims to be the root: the root's signature does not verify.
        var forged = good
        forged.signature = DetachedSignature.fileData(try stranger.sign(good.statement))
        #expect(code { try keys.apply(forged) } == "bad_rotation")
        // A stranger's own statement naming itself as the previous key: not the current key.
        #expect(code { try keys.apply(try KeyRotation.make(sequence: 1, from: stranger, to: next, successorValidity: (nil, nil),
                                                            overlap: day, revoke: false, now: t0)) } == "bad_rotation")
        // Not signed by its successor.
        var unproven = good
        unproven.successorSignature = DetachedSignature.fileData(try stranger.sign(good.statement))
        #expect(code { try keys.apply(unproven) } == "bad_rotation")
        // A statement altered after signing.
        var altered = good
        altered.statement = try KeyRotation(sequence: 1, previous: root.publicKey, next: TrustedKey(publicKey: stranger.publicKey),
                                            previousValidUntil: t0, created: t0).encoded()
        #expect(code { try keys.apply(altered) } == "bad_rotation")
        // Out of sequence: the second rotation before the first.
        let second = try KeyRotation.make(sequence: 2, from: next, to: third, successorValidity: (nil, nil), overlap: day, revoke: false, now: t0)
        #expect(code { try keys.apply(second) } == "bad_rotation")
        #expect(keys.sequence == 0)

        try keys.apply(good)
        // The second rotation signed by the root, which is no longer the current key.
        #expect(code { try keys.apply(try KeyRotation.make(sequence: 2, from: root, to: third, successorValidity: (nil, nil),
                                                            overlap: day, revoke: false, now: t0)) } == "bad_rotation")
        try keys.apply(second)
        #expect(keys.currentKeys == [third.publicKey])
        #expect(code { try keys.verify(try third.sign(message), of: message, what: "pointer", at: t0 + 1) } == nil)
    }

    @Test func anAppWhoseKeyExpiredIsStillMovedByARotationItTrusts() throws {
        let root = try Ed25519Signer.generate(), next = try Ed25519Signer.generate()
        let keys = TrustedKeySet.ed25519(roots: [TrustedKey(publicKey: root.publicKey, validUntil: t0)])
        let later = t0 + 90 * day
        #expect(code { try keys.verify(try root.sign(message), of: message, what: "pointer", at: later) } == "key_expired")
        try keys.apply(try KeyRotation.make(sequence: 1, from: root, to: next, successorValidity: (t0, nil), overlap: 0, revoke: false, now: later))
        #expect(code { try keys.verify(try next.sign(message), of: message, what: "pointer", at: later) } == nil)
    }

    @Test func appliedRotationsAreSavedAndReplayedButATamperedStateAddsNoKey() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-keys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state/keys.json")
        let root = try Ed25519Signer.generate(), next = try Ed25519Signer.generate(), stranger = try Ed25519Signer.generate()
        let roots = [TrustedKey(publicKey: root.publicKey)]
        try TrustedKeySet.ed25519(roots: roots, stateURL: state)
            .apply(try KeyRotation.make(sequence: 1, from: root, to: next, successorValidity: (nil, nil), overlap: day, revoke: false, now: t0))
        let restarted = TrustedKeySet.ed25519(roots: roots, stateURL: state)
        #expect(restarted.sequence == 1)
        #expect(restarted.currentKeys == [next.publicKey])

        // Someone with write access to the app's files appends a rotation to their own key.
        var saved = try JSONDecoder().decode([KeyRotation.Signed].self, from: Data(contentsOf: state))
        saved.append(try KeyRotation.make(sequence: 2, from: stranger, to: try Ed25519Signer.generate(),
                                          successorValidity: (nil, nil), overlap: day, revoke: false, now: t0))
        try JSONEncoder().encode(saved).write(to: state)
        let tampered = TrustedKeySet.ed25519(roots: roots, stateURL: state)
        #expect(tampered.sequence == 1)
        #expect(tampered.currentKeys == [next.publicKey])
        #expect(code { try tampered.verify(try stranger.sign(message), of: message, what: "pointer", at: t0) } == "bad_signature")
    }

    @Test func remoteConfigHonoursTheSameWindowsWithConfigErrors() throws {
        let root = try Ed25519Signer.generate(), next = try Ed25519Signer.generate()
        let keys = TrustedKeySet.ed25519(roots: [TrustedKey(publicKey: root.publicKey, validUntil: t0)])
        let document = try RemoteConfig(version: 1, created: t0 - day, expires: t0 + 400 * day, engines: ["webkit": EngineProfile(kind: "webkit")],
                                        rules: [ConfigRule(id: "default", match: try ConfigURLPattern("*"),
                                                           features: FeatureSet(cookieSync: true, engine: "webkit"))]).encoded()
        let byRoot = DetachedSignature.fileData(try root.sign(document))
        #expect(try RemoteConfigClient.verify(document, signature: byRoot, with: keys, at: t0 - 1).version == 1)
        let expired = #expect(throws: HybridError.self) { _ = try RemoteConfigClient.verify(document, signature: byRoot, with: keys, at: t0 + 1) }
        #expect(expired?.code == "key_expired")
        if case .config = expired {} else { Issue.record("not a config error: \(String(describing: expired))") }
        try keys.apply(try KeyRotation.make(sequence: 1, from: root, to: next, successorValidity: (nil, nil), overlap: 0, revoke: true, now: t0 + 1))
        let revoked = #expect(throws: HybridError.self) { _ = try RemoteConfigClient.verify(document, signature: byRoot, with: keys, at: t0 + 2) }
        #expect(revoked == .config(.keyRevoked(key: TrustedKey(publicKey: root.publicKey).fingerprint)))
        let byNext = DetachedSignature.fileData(try next.sign(document))
        #expect(try RemoteConfigClient.verify(document, signature: byNext, with: keys, at: t0 + 2).version == 1)
    }
}
