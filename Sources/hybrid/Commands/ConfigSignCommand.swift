import Foundation
import HybridCommandLine
import HybridCore
import HybridCrypto

enum ConfigSignCommand: HybridCommand {
    static let file: CommandArgument<String> = .required("FILE", help: "the document")
    static let key: CommandOption<String> = .required("--key", "KEYDIR/private", help: "the private key that signs")
    static let repo: CommandOption<String?> = .text("--repo", "REPO", help: "also publish the document and its signature as REPO/config/latest.json(.sig)")

    static var table: CommandTable {
        CommandTable(
            name: "sign", summary: "Validate and sign a document; optionally publish it into a repository",
            discussion: """
                Validates FILE (format, default rule last, engines named by rules exist, rollouts within
                0–100, not expired) and writes its detached Ed25519 signature to FILE.sig — the same key
                and signature format as packages. With --repo, also publishes both as
                REPO/config/latest.json(.sig), refusing a version not above the one already there
                (clients would refuse it as a downgrade anyway).
                """,
            arguments: [file], options: [key, repo])
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let path = arguments[file]
        let key = arguments[key]
        let repo = arguments[repo]
        let (config, bytes) = try ConfigCommand.load(path)
        guard config.expires > Date() else {
            throw HybridError.config(.expired(version: config.version, expires: config.expires))
        }
        let signer = try Ed25519KeyFiles.signer(at: URL(fileURLWithPath: key))
        let signature = DetachedSignature.fileData(try signer.sign(bytes))
        try signature.write(to: URL(fileURLWithPath: path + ".sig"), options: .atomic)
        print("signed \(path) (version \(config.version), \(config.rules.count) rules) → \(path).sig")
        guard let repo else { return 0 }

        let target = URL(fileURLWithPath: repo).appendingPathComponent(ConfigRepositoryLayout.document)
        if let existing = FileManager.default.contents(atPath: target.path), let old = try? RemoteConfig.decode(existing) {
            if old.version == config.version { throw HybridError.config(.versionReused(config.version)) }
            if old.version > config.version { throw HybridError.config(.versionRollback(offered: config.version, current: old.version)) }
        }
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Document first, then signature: a client fetching in between sees a signature that does
        // not verify, refuses, keeps what it has and succeeds on its next refresh.
        try bytes.write(to: target, options: .atomic)
        try signature.write(to: URL(fileURLWithPath: target.path + ".sig"), options: .atomic)
        print("published \(ConfigRepositoryLayout.document) in \(repo)")
        return 0
    }
}
