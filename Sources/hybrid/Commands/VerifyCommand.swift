import Foundation
import HybridCommandLine
import HybridCore
import HybridCrypto

enum VerifyCommand: HybridCommand {
    static let repo: CommandArgument<String> = .required("REPO", help: "the repository directory")
    static let key: CommandOption<String> = .required("--key", "PUB", help: "the root public key: a key file or a key directory")

    static var table: CommandTable {
        CommandTable(
            name: "verify", summary: "Check every pointer, manifest, signature and blob of a package repository",
            discussion: """
                Verifies, with the public key PUB (a key file or a key directory) moved along the
                repository's key rotations (keys/rotation-N.json, each checked), each package's signed
                pointer and every version's signed manifest, then re-hashes every blob (stored bytes and
                decoded contents), the compressed manifest copies, and every patch (stored bytes, then
                applied to its base where the repository still holds it: the result must be the file the
                manifest describes). Prints each problem; exits 1 when there is any.
                """,
            arguments: [repo], options: [key])
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let key = arguments[Self.key]
        let repo = arguments[Self.repo]
        let keys = try repositoryKeys(root: URL(fileURLWithPath: key), repository: URL(fileURLWithPath: repo)) { count, keys in
            print("key rotations: \(count), current key \(keys.currentKeys.map { TrustedKey(publicKey: $0).fingerprint }.joined())")
        }
        let audit = PackageRepositoryAudit(repository: URL(fileURLWithPath: repo), platform: .native, verifier: keys)
        let bar = TerminalProgress(label: "verifying", counting: true)
        let report = audit.run { done, total in bar.show(done: Int64(done), total: Int64(total), detail: "\(done)/\(total) blobs") }
        bar.finish()
        for finding in report.findings { print("FAIL \(finding)") }
        let summary = "\(report.packages.count) package(s), \(report.manifestsChecked) manifest(s), \(report.blobsChecked) blob(s), \(report.patchesChecked) patch(es)"
        if report.isClean {
            print("ok: \(summary)")
            return 0
        }
        print("\(report.findings.count) problem(s) in \(summary)")
        return 1
    }

    /// The root public key at `root`, moved along `repository`'s key rotations, each checked as a client
    /// would; `rotated` hears how many were applied (only when there were any).
    static func repositoryKeys(root: URL, repository: URL,
                               rotated: (Int, TrustedKeySet) -> Void = { _, _ in }) throws -> TrustedKeySet {
        let rootKey = try Ed25519KeyFiles.verifier(at: root)
        let keys = TrustedKeySet.ed25519(roots: [TrustedKey(publicKey: rootKey.publicKey)])
        let rotations = try KeyRotation.Signed.chain(in: repository)
        for rotation in rotations { try keys.apply(rotation) }
        if !rotations.isEmpty { rotated(rotations.count, keys) }
        return keys
    }
}
