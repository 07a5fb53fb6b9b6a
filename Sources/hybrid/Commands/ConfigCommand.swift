import Foundation
import HybridCommandLine
import HybridCore
import HybridCrypto

/// `hybrid config SUBCOMMAND`: write, sign, inspect and explain remote-config documents.
/// Each subcommand lives in its own `Config*Command.swift` and is listed in ``subcommands``.
enum ConfigCommand: CommandGroup {
    /// Its subcommands, in the order its help lists them.
    static var subcommands: [any HybridCommand.Type] { [
        ConfigTemplateCommand.self,
        ConfigSignCommand.self,
        ConfigInspectCommand.self,
        ConfigExplainCommand.self,
    ] }

    static var table: CommandTable {
        CommandTable(
            name: "config", summary: "Write, sign, inspect and explain remote-config documents (rollout rules)",
            discussion: """
                A remote-config document says, per URL pattern and rollout percentage, which container
                features pages get and on which engine. Publish it signed at REPO/config/latest.json.
                """,
            subcommands: subcommands)
    }

    /// Reads and validates a document file (without checking its signature).
    static func load(_ path: String) throws -> (config: RemoteConfig, bytes: Data) {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw HybridError.config(.invalidDocument("cannot read \(path)"))
        }
        return (try RemoteConfig.decode(bytes), bytes)
    }

    /// Checks `path`'s detached signature (`path.sig`) with the public key at `key`.
    static func verify(_ path: String, bytes: Data, key: String) throws {
        let verifier = try Ed25519KeyFiles.verifier(at: URL(fileURLWithPath: key))
        let signature = FileManager.default.contents(atPath: path + ".sig")
        _ = try RemoteConfigClient.verify(bytes, signature: signature, with: verifier)
    }

    static func date(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
}
