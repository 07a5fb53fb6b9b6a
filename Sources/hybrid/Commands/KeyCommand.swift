import Foundation
import HybridCommandLine
import HybridCore
import HybridCrypto

enum KeyCommand: HybridCommand {
    static let action: CommandArgument<String> = .required("ACTION", choices: ["rotate"], help: "what to do with the key")
    static let key: CommandOption<String> = .required("--key", "CURRENT_KEYDIR", help: "the current signing key")
    static let out: CommandOption<String> = .required("--out", "NEXT_KEYDIR", help: "the successor's key directory, created with a fresh key pair unless it holds one")
    static let repo: CommandOption<String> = .required("--repo", "REPO", help: "the repository the statement is written to")
    static let overlapDays: CommandOption<Double> = .double("--overlap-days", "N", default: 7,
                                                           help: "clients keep accepting the current key this long")
    static let revoke: CommandOption<Bool> = .flag("--revoke", help: "the current key leaked: clients refuse its signatures at once")
    static let validDays: CommandOption<Double?> = .double("--valid-days", "N", defaultText: "open-ended",
        help: "the successor's validity window, from now; a window that ends at or before now is refused (exit 2)")
    static let force: CommandOption<Bool> = .flag("--force", help: """
        rotate anyway: accept a successor that is already expired (clients refuse everything it signs, and `hybrid pack` \
        refuses to sign with it), or a --key that is not the key that signed the repository's pointers (clients that \
        trust the real key refuse the statement)
        """)

    static var table: CommandTable {
        CommandTable(
            name: "key", summary: "Rotate the signing key: a statement signed by the current key naming its successor",
            discussion: """
                Moves trust from the current signing key to a successor, as TUF rotates root keys. Writes
                keys/rotation-N.json to REPO with two detached signatures: .sig by the current key and
                .next.sig by the successor (proof its private key exists). NEXT_KEYDIR is created with a
                fresh key pair unless it already holds one. The next `hybrid pack --key NEXT_KEYDIR` (and
                `hybrid config sign`) signs with the successor, and its pointer announces the rotation;
                clients whose TrustedKeySet trusts the current key fetch the statement, check both
                signatures, and trust the successor. Packing with the old key is refused from now on.

                An app whose key has expired still follows a rotation its expired key signed; a revoked key
                can sign none. Rotate before the current key expires, and keep the old key offline after.
                """,
            arguments: [action], options: [key, out, repo, overlapDays, revoke, validDays, force],
            epilogue: """
                Exits 2, writing nothing, when --key is not the repository's current signing key (the
                successor the last rotation named, or with no rotation yet the key that signed the
                repository's pointers), or when the successor would already be expired, unless --force.
                """)
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let key = arguments[Self.key]
        let out = arguments[Self.out]
        let repo = arguments[Self.repo]
        let overlapDays = arguments[Self.overlapDays]
        let revoke = arguments[Self.revoke]
        let validDays = arguments[Self.validDays]
        let force = arguments[Self.force]
        let repository = URL(fileURLWithPath: repo)
        let current = try Ed25519KeyFiles.signer(at: URL(fileURLWithPath: key))
        let chain = try KeyRotation.Signed.chain(in: repository)
        let now = Date()
        let successorUntil = validDays.map { now.addingTimeInterval($0 * 86_400) }
        if let refusal = refusal(current: current, key: key, chain: chain, repository: repository,
                                 successorUntil: successorUntil, now: now) {
            guard force else {
                FileHandle.standardError.write(Data("hybrid key: \(refusal); nothing written (--force rotates anyway)\n".utf8))
                return 2
            }
            FileHandle.standardError.write(Data("hybrid key: warning: \(refusal); rotating anyway (--force)\n".utf8))
        }
        let nextDirectory = URL(fileURLWithPath: out)
        let successor: Ed25519Signer
        if FileManager.default.fileExists(atPath: nextDirectory.appendingPathComponent(Ed25519KeyFiles.privateName).path) {
            successor = try Ed25519KeyFiles.signer(at: nextDirectory)
        } else {
            successor = try Ed25519KeyFiles.generate(into: nextDirectory)
        }
        let rotation = try KeyRotation.make(sequence: chain.count + 1, from: current, to: successor,
                                            successorValidity: (now, successorUntil),
                                            overlap: overlapDays * 86_400, revoke: revoke, now: now)
        try rotation.write(into: repository)
        let statement = try KeyRotation.decode(rotation.statement)
        print("wrote \(KeyRotation.path(statement.sequence)) (+ .sig by the current key, .next.sig by the successor)")
        print("successor: \(nextDirectory.path) (public key \(successor.publicKey.base64EncodedString()))")
        print(revoke ? "current key \(TrustedKey(publicKey: current.publicKey).fingerprint) is revoked now"
                     : "current key \(TrustedKey(publicKey: current.publicKey).fingerprint) stays valid until \(ISO8601DateFormatter().string(from: statement.previousValidUntil))")
        print("next: hybrid pack … --key \(nextDirectory.appendingPathComponent(Ed25519KeyFiles.privateName).path) (its pointer announces the rotation)")
        return 0
    }

    /// Why this rotation would publish something clients refuse, or `nil` when it would not.
    private static func refusal(current: Ed25519Signer, key: String, chain: [KeyRotation.Signed], repository: URL,
                                successorUntil: Date?, now: Date) -> String? {
        if let until = successorUntil, until <= now {
            return "the successor would already be expired "
                + "(valid until \(ISO8601DateFormatter().string(from: until))); give --valid-days more than 0, or omit it"
        }
        let fingerprint = TrustedKey(publicKey: current.publicKey).fingerprint
        if let last = chain.last {
            guard let head = try? KeyRotation.decode(last.statement).next else {
                return "keys/rotation-\(chain.count).json cannot be read"
            }
            guard head.publicKey == current.publicKey else {
                return "\(key) (key \(fingerprint)) is not the repository's current signing key: "
                    + "keys/rotation-\(chain.count).json names \(head.fingerprint)"
            }
            return nil
        }
        // No rotation yet: the current key is the one that signed the repository's pointers.
        guard let verifier = try? Ed25519Verifier(publicKey: current.publicKey) else { return "\(key) holds no usable key" }
        let signedBy = pointers(in: repository).compactMap { pointer -> Bool? in
            guard let data = FileManager.default.contents(atPath: pointer.path),
                  let signature = FileManager.default.contents(atPath: pointer.path + PackageRepositoryLayout.signatureSuffix)
            else { return nil }
            return (try? DetachedSignature.verify(signature, of: data, what: pointer.lastPathComponent, with: verifier, at: now)) != nil
        }
        if !signedBy.isEmpty, !signedBy.contains(true) {
            return "\(key) (key \(fingerprint)) is not the repository's current signing key: "
                + "it signed none of its \(signedBy.count) package pointer(s)"
        }
        return nil
    }

    /// The signed pointers (`packages/ID/latest.json`) in `repository`.
    private static func pointers(in repository: URL) -> [URL] {
        let packages = repository.appendingPathComponent("packages")
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: packages.path)) ?? []
        return ids.sorted().map { packages.appendingPathComponent($0).appendingPathComponent("latest.json") }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
    }
}
