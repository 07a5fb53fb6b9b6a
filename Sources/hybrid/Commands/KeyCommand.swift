import Foundation
import HybridCore
import HybridCrypto

enum KeyCommand: HybridCommand {
    static let name = "key"
    static let summary = "Rotate the signing key: a statement signed by the current key naming its successor"
    static let usage = """
        USAGE: hybrid key rotate --key CURRENT_KEYDIR --out NEXT_KEYDIR --repo REPO
                                 [--overlap-days 7] [--revoke] [--valid-days N]

        Moves trust from the current signing key to a successor, as TUF rotates root keys. Writes
        keys/rotation-N.json to REPO with two detached signatures: .sig by the current key and
        .next.sig by the successor (proof its private key exists). NEXT_KEYDIR is created with a
        fresh key pair unless it already holds one. The next `hybrid pack --key NEXT_KEYDIR` (and
        `hybrid config sign`) signs with the successor, and its pointer announces the rotation;
        clients whose TrustedKeySet trusts the current key fetch the statement, check both
        signatures, and trust the successor. Packing with the old key is refused from now on.

        An app whose key has expired still follows a rotation its expired key signed; a revoked key
        can sign none. Rotate before the current key expires, and keep the old key offline after.

        OPTIONS:
          --overlap-days N   clients keep accepting the current key this long (default 7)
          --revoke           the current key leaked: clients refuse its signatures at once
          --valid-days N     the successor's validity window, from now (default: open-ended)
        """

    static func run(_ arguments: Arguments) throws -> Int32 {
        var arguments = arguments
        let key = try arguments.required("--key")
        let out = try arguments.required("--out")
        let repo = try arguments.required("--repo")
        let overlapDays = try arguments.double("--overlap-days") ?? 7
        let revoke = arguments.flag("--revoke")
        let validDays = try arguments.double("--valid-days")
        let positionals = try arguments.finish(maxPositionals: 1)
        guard positionals == ["rotate"] else {
            throw Arguments.Error.invalid(option: "SUBCOMMAND", value: positionals.first ?? "(none)", expected: "rotate")
        }
        let repository = URL(fileURLWithPath: repo)
        let current = try Ed25519KeyFiles.signer(at: URL(fileURLWithPath: key))
        let chain = try KeyRotation.Signed.chain(in: repository)
        if let last = chain.last {
            let head = try KeyRotation.decode(last.statement).next.publicKey
            guard head == current.publicKey else {
                throw HybridError.package(.invalidKey("\(key) is not the repository's current key (keys/rotation-\(chain.count).json names \(head.prefix(8).map { String(format: "%02x", $0) }.joined()))"))
            }
        }
        let nextDirectory = URL(fileURLWithPath: out)
        let successor: Ed25519Signer
        if FileManager.default.fileExists(atPath: nextDirectory.appendingPathComponent(Ed25519KeyFiles.privateName).path) {
            successor = try Ed25519KeyFiles.signer(at: nextDirectory)
        } else {
            successor = try Ed25519KeyFiles.generate(into: nextDirectory)
        }
        let now = Date()
        let rotation = try KeyRotation.make(sequence: chain.count + 1, from: current, to: successor,
                                            successorValidity: (now, validDays.map { now.addingTimeInterval($0 * 86_400) }),
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
}
