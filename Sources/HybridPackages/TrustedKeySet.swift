import Foundation
import HybridBase

/// The signing keys an app trusts for manifests, pointers and remote config: its root keys, each
/// with a validity window, moved forward by ``KeyRotation`` statements.
///
/// A signature verifies when a key of the set signed it and that key is valid now: not revoked,
/// not before its window, not after it. A signature by a known key outside its window is refused
/// with a typed error (``PackageFailure/keyExpired(key:until:)``, ``PackageFailure/keyNotYetValid(key:from:)``,
/// ``PackageFailure/keyRevoked(key:)``), so an app can tell "rotate your key" from "forged".
///
/// Rotations are applied in sequence, each checked against the chain's current key as TUF checks
/// a new root against the old one: signed by that key (even if it has expired, so an app whose key
/// expired can still be moved to a new one; never if it was revoked) and by the successor. Applied
/// rotations are saved (``init(roots:revoked:stateURL:makeVerifier:)``) and replayed, re-verified,
/// from the roots at every start, so a tampered state file cannot add a key.
///
/// Share one set between the package updater and the remote-config client: a rotation learned by
/// one holds for the other.
public final class TrustedKeySet: SignatureVerifier, @unchecked Sendable {
    // Guarded by `lock`: updaters on several tasks read and extend the chain.
    private let lock = NSLock()
    private var keys: [TrustedKey]
    private var revoked: Set<Data>
    private var rotations: [KeyRotation.Signed] = []
    private var head: [Data]
    private let stateURL: URL?
    private let makeVerifier: @Sendable (Data) throws -> any SignatureVerifier

    /// A key set.
    /// - Parameters:
    ///   - roots: the keys the app ships with, each with its validity window.
    ///   - revoked: public keys the app refuses whatever any statement says (a leak known at release).
    ///   - stateURL: where applied rotations are saved (for instance in the package store's `state/`);
    ///     `nil` keeps them in memory only.
    ///   - makeVerifier: an Ed25519 verifier for one public key (HybridCrypto's `Ed25519Verifier.init`).
    public init(roots: [TrustedKey], revoked: [Data] = [], stateURL: URL? = nil,
                makeVerifier: @escaping @Sendable (Data) throws -> any SignatureVerifier) {
        keys = roots
        self.revoked = Set(revoked)
        head = roots.map(\.publicKey)
        self.stateURL = stateURL
        self.makeVerifier = makeVerifier
        guard let stateURL, let data = FileManager.default.contents(atPath: stateURL.path),
              let saved = try? JSONDecoder().decode([KeyRotation.Signed].self, from: data) else { return }
        for rotation in saved {
            // Replayed exactly as first applied; one that no longer verifies ends the chain there.
            guard (try? lock.withLock({ try applyLocked(rotation) })) != nil else { break }
        }
    }

    /// How many rotations have been applied.
    public var sequence: Int { lock.withLock { rotations.count } }

    /// Every key the set knows, with its window (revoked ones included).
    public var trustedKeys: [TrustedKey] { lock.withLock { keys } }

    /// The key (or root keys) that may sign the next rotation.
    public var currentKeys: [Data] { lock.withLock { head } }

    /// Whether `signature` is a valid signature of `message` by a key valid now.
    public func isValidSignature(_ signature: Data, of message: Data) -> Bool {
        (try? verify(signature, of: message, what: "", at: Date())) != nil
    }

    /// Checks `signature` over `message` against every key, honouring windows and revocations.
    /// - Throws: ``PackageFailure/keyRevoked(key:)``, ``PackageFailure/keyExpired(key:until:)`` or
    ///   ``PackageFailure/keyNotYetValid(key:from:)`` when only such a key signed it, else
    ///   ``PackageFailure/badSignature(_:)``.
    public func verify(_ signature: Data, of message: Data, what: String, at now: Date) throws {
        let (keys, revoked) = lock.withLock { (self.keys, self.revoked) }
        var refusal: PackageFailure?
        func rank(_ failure: PackageFailure) -> Int {
            switch failure { case .keyRevoked: 3; case .keyExpired: 2; default: 1 }
        }
        for key in keys {
            guard let verifier = try? makeVerifier(key.publicKey), verifier.isValidSignature(signature, of: message) else { continue }
            let failure: PackageFailure
            if revoked.contains(key.publicKey) {
                failure = .keyRevoked(key: key.fingerprint)
            } else if let from = key.validFrom, now < from {
                failure = .keyNotYetValid(key: key.fingerprint, from: from)
            } else if let until = key.validUntil, now > until {
                failure = .keyExpired(key: key.fingerprint, until: until)
            } else {
                return
            }
            if refusal.map({ rank($0) < rank(failure) }) ?? true { refusal = failure }
        }
        throw HybridError.pkg(refusal ?? .badSignature(what))
    }

    /// Applies the next rotation and saves the chain.
    /// - Throws: ``PackageFailure/badRotation(_:)`` for a statement out of sequence, not signed by
    ///   the current key (or signed by a revoked one), or not signed by its successor; a write failure.
    public func apply(_ rotation: KeyRotation.Signed) throws {
        try lock.withLock {
            try applyLocked(rotation)
            guard let stateURL else { return }
            try PackageStore(root: stateURL.deletingLastPathComponent()).atomicWrite(try JSONEncoder().encode(rotations), to: stateURL)
        }
    }

    private func applyLocked(_ signed: KeyRotation.Signed) throws {
        func bad(_ reason: String) -> HybridError { .pkg(.badRotation(reason)) }
        func signatureBytes(_ file: Data) -> Data? {
            Data(base64Encoded: String(decoding: file, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        // The statement is untrusted until its signature checks: read only what picks the key.
        let claimed = try KeyRotation.decode(signed.statement)
        guard claimed.sequence == rotations.count + 1 else {
            throw bad("statement \(claimed.sequence) does not follow \(rotations.count)")
        }
        guard head.contains(claimed.previous) else {
            throw bad("statement \(claimed.sequence) is not signed by the current key (it names \(claimed.previous.prefix(8).lowercaseHex))")
        }
        guard !revoked.contains(claimed.previous) else {
            throw HybridError.pkg(.keyRevoked(key: claimed.previous.prefix(8).lowercaseHex))
        }
        guard let signature = signatureBytes(signed.signature),
              (try? makeVerifier(claimed.previous))?.isValidSignature(signature, of: signed.statement) == true else {
            throw bad("statement \(claimed.sequence) is not signed by the current key")
        }
        guard let successorSignature = signatureBytes(signed.successorSignature),
              (try? makeVerifier(claimed.next.publicKey))?.isValidSignature(successorSignature, of: signed.statement) == true else {
            throw bad("statement \(claimed.sequence) is not signed by its successor")
        }
        for index in keys.indices where keys[index].publicKey == claimed.previous {
            keys[index].validUntil = min(keys[index].validUntil ?? .distantFuture, claimed.previousValidUntil)
        }
        if claimed.revokesPrevious { revoked.insert(claimed.previous) }
        keys.removeAll { $0.publicKey == claimed.next.publicKey }
        keys.append(claimed.next)
        head = [claimed.next.publicKey]
        rotations.append(signed)
    }
}
