import Foundation
import HybridBase

/// A signing key an app trusts, and when it may sign.
public struct TrustedKey: Codable, Sendable, Equatable {
    /// The 32-byte Ed25519 public key (base64 in JSON).
    public var publicKey: Data
    /// Signatures are refused before this instant (`nil`: no lower bound).
    public var validFrom: Date?
    /// Signatures are refused after this instant (`nil`: no upper bound).
    public var validUntil: Date?

    /// A key valid from `validFrom` until `validUntil` (either open).
    public init(publicKey: Data, validFrom: Date? = nil, validUntil: Date? = nil) {
        self.publicKey = publicKey
        self.validFrom = validFrom
        self.validUntil = validUntil
    }

    /// A short name for logs and errors: the first 8 bytes of the key in hex.
    public var fingerprint: String { publicKey.prefix(8).lowercaseHex }
}

/// A statement that moves trust from the current signing key to its successor, as TUF rotates
/// root keys: signed by the key it replaces (`.sig`) and by the successor (`.next.sig`, proof the
/// successor's private key exists), numbered so a client applies rotations in order.
///
/// Repository files: `keys/rotation-N.json`, `keys/rotation-N.json.sig`, `keys/rotation-N.json.next.sig`.
public struct KeyRotation: Codable, Sendable, Equatable {
    /// The format this code writes and reads.
    public static let currentFormat = 1

    /// The format it was written in.
    public var format: Int
    /// 1 for the first rotation from the app's root keys, then 2, 3, …
    public var sequence: Int
    /// The public key being replaced: a root key, or the previous rotation's successor.
    public var previous: Data
    /// The successor and its validity window.
    public var next: TrustedKey
    /// Until when the replaced key still signs acceptably (an overlap while clients move over).
    public var previousValidUntil: Date
    /// The replaced key is revoked: its signatures are refused at once, with ``PackageFailure/keyRevoked(key:)``
    /// (a leaked key), and it can sign no further rotation.
    public var revokesPrevious: Bool
    /// When the statement was made.
    public var created: Date

    /// A rotation statement.
    public init(sequence: Int, previous: Data, next: TrustedKey, previousValidUntil: Date, revokesPrevious: Bool = false, created: Date = Date()) {
        self.format = Self.currentFormat
        self.sequence = sequence
        self.previous = previous
        self.next = next
        self.previousValidUntil = previousValidUntil
        self.revokesPrevious = revokesPrevious
        self.created = created
    }

    /// The JSON bytes both keys sign.
    public func encoded() throws -> Data { try PackageDates.encoder.encode(self) }

    /// Decodes statement bytes (only after their signatures verified).
    /// - Throws: ``PackageFailure/badRotation(_:)``.
    public static func decode(_ data: Data) throws -> KeyRotation {
        let rotation: KeyRotation
        do { rotation = try PackageDates.decoder.decode(KeyRotation.self, from: data) } catch {
            throw HybridError.pkg(.badRotation("statement is malformed: \(error)"))
        }
        guard rotation.format == currentFormat, rotation.sequence >= 1, rotation.previous.count == 32, rotation.next.publicKey.count == 32,
              rotation.previous != rotation.next.publicKey else {
            throw HybridError.pkg(.badRotation("statement \(rotation.sequence) is malformed"))
        }
        return rotation
    }

    /// A rotation as a repository stores it: the statement's exact bytes and both detached signature files.
    public struct Signed: Codable, Sendable, Equatable {
        /// The statement's bytes.
        public var statement: Data
        /// `rotation-N.json.sig`: by the replaced key.
        public var signature: Data
        /// `rotation-N.json.next.sig`: by the successor.
        public var successorSignature: Data

        /// The three files' bytes.
        public init(statement: Data, signature: Data, successorSignature: Data) {
            self.statement = statement
            self.signature = signature
            self.successorSignature = successorSignature
        }

        /// Every rotation in a repository directory, in sequence, up to the first gap.
        /// - Throws: ``PackageFailure/badRotation(_:)`` when a statement lacks a signature file.
        public static func chain(in repository: URL) throws -> [Signed] {
            var chain: [Signed] = []
            while true {
                let path = repository.appendingPathComponent(KeyRotation.path(chain.count + 1)).path
                guard let statement = FileManager.default.contents(atPath: path) else { return chain }
                guard let signature = FileManager.default.contents(atPath: path + PackageRepositoryLayout.signatureSuffix),
                      let successor = FileManager.default.contents(atPath: path + KeyRotation.successorSignatureSuffix) else {
                    throw HybridError.pkg(.badRotation("\(KeyRotation.path(chain.count + 1)) lacks a signature file"))
                }
                chain.append(Signed(statement: statement, signature: signature, successorSignature: successor))
            }
        }

        /// Writes the three files into a repository directory.
        public func write(into repository: URL) throws {
            let rotation = try KeyRotation.decode(statement)
            let store = PackageStore(root: repository)
            let url = repository.appendingPathComponent(KeyRotation.path(rotation.sequence))
            try store.atomicWrite(signature, to: URL(fileURLWithPath: url.path + PackageRepositoryLayout.signatureSuffix))
            try store.atomicWrite(successorSignature, to: URL(fileURLWithPath: url.path + KeyRotation.successorSignatureSuffix))
            try store.atomicWrite(statement, to: url)   // last: a reader never sees a statement without its signatures
        }
    }

    /// Makes rotation `sequence` from the current key `current` to `successor`, signed by both.
    /// - Parameters:
    ///   - overlap: how long `current` still signs acceptably (ignored when `revoke`).
    ///   - revoke: `current` is compromised: refuse its signatures at once.
    ///   - successorValidity: the successor's window.
    public static func make(sequence: Int, from current: any Signer, to successor: any Signer, successorValidity: (from: Date?, until: Date?),
                            overlap: TimeInterval, revoke: Bool, now: Date = Date()) throws -> Signed {
        let rotation = KeyRotation(sequence: sequence, previous: current.publicKey,
                                   next: TrustedKey(publicKey: successor.publicKey, validFrom: successorValidity.from, validUntil: successorValidity.until),
                                   previousValidUntil: revoke ? now : now.addingTimeInterval(overlap), revokesPrevious: revoke, created: now)
        let statement = try rotation.encoded()
        return Signed(statement: statement, signature: DetachedSignature.fileData(try current.sign(statement)),
                      successorSignature: DetachedSignature.fileData(try successor.sign(statement)))
    }

    /// Where rotation `sequence` lives in a repository (`keys/rotation-N.json`).
    public static func path(_ sequence: Int) -> String { "keys/rotation-\(sequence).json" }
    /// What the successor's signature file adds to the statement's path.
    public static let successorSignatureSuffix = ".next.sig"
}
