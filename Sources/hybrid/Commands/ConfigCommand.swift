import Foundation
import HybridCommandLine
import HybridCore
import HybridCrypto

/// `hybrid config SUBCOMMAND`: write, sign, inspect and explain remote-config documents.
/// Each subcommand lives in its own `Config*Command.swift` and is listed in ``subcommands``.
enum ConfigCommand: HybridCommand {
    static var subcommands: [any HybridCommand.Type] { [
        ConfigTemplateCommand.self,
        ConfigSignCommand.self,
        ConfigInspectCommand.self,
        ConfigExplainCommand.self,
    ] }

    static let name = "config"
    static let summary = "Write, sign, inspect and explain remote-config documents (rollout rules)"
    static var usage: String {
        var lines = ["USAGE: hybrid config SUBCOMMAND [OPTIONS]", "",
                     "A remote-config document says, per URL pattern and rollout percentage, which container",
                     "features pages get and on which engine. Publish it signed at REPO/config/latest.json.", "",
                     "SUBCOMMANDS:"]
        for command in subcommands {
            lines.append("  " + command.name.padding(toLength: 10, withPad: " ", startingAt: 0) + command.summary)
        }
        lines.append("")
        for command in subcommands { lines.append(command.usage + "\n") }
        return lines.joined(separator: "\n")
    }

    static func run(_ arguments: Arguments) throws -> Int32 {
        // `Arguments` hides its raw tokens and a subcommand's options are its own, so the
        // subcommand is read from the process arguments: the word right after `config`.
        let argv = Array(CommandLine.arguments.dropFirst())
        guard let index = argv.firstIndex(of: name), index + 1 < argv.count else {
            throw Arguments.Error.missingRequired("SUBCOMMAND (\(subcommands.map { $0.name }.joined(separator: "|")))")
        }
        let subname = argv[index + 1]
        guard let command = subcommands.first(where: { $0.name == subname }) else {
            throw Arguments.Error.invalid(option: "SUBCOMMAND", value: subname, expected: subcommands.map { $0.name }.joined(separator: "|"))
        }
        return try command.run(Arguments(Array(argv[(index + 2)...])))
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
