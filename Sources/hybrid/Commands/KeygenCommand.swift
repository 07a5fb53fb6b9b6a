import Foundation
import HybridCommandLine
import HybridCore
import HybridCrypto

enum KeygenCommand: HybridCommand {
    static let out: CommandOption<String> = .required("--out", "KEYDIR", help: "the directory the key pair goes to (it must hold no key)")

    static var table: CommandTable {
        CommandTable(
            name: "keygen", summary: "Generate an Ed25519 key pair for signing packages",
            discussion: """
                Writes KEYDIR/private (the 32-byte seed, base64, mode 0600) and KEYDIR/public (the
                32-byte public key, base64). Both are CryptoKit's Curve25519.Signing raw representations,
                so Apple clients read them with `rawRepresentation:`. Refuses to overwrite a key.
                Ship KEYDIR/public with the app; keep KEYDIR/private with the publisher.
                """,
            options: [out])
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let out = arguments[Self.out]
        let directory = URL(fileURLWithPath: out)
        let signer = try Ed25519KeyFiles.generate(into: directory)
        print("wrote \(directory.appendingPathComponent(Ed25519KeyFiles.privateName).path) (keep secret)")
        print("wrote \(directory.appendingPathComponent(Ed25519KeyFiles.publicName).path)")
        print("public key: \(signer.publicKey.base64EncodedString())")
        return 0
    }
}
