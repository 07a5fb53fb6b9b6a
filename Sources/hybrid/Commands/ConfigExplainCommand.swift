import Foundation
import HybridCommandLine
import HybridCore

enum ConfigExplainCommand: HybridCommand {
    static let url: CommandArgument<String> = .required("URL", help: "the absolute URL of a navigation")
    static let installID: CommandOption<String> = .required("--install-id", "ID", help: "the install whose rollout buckets decide")
    static let config: CommandOption<String> = .text("--config", "FILE", default: ConfigRepositoryLayout.document, help: "the document")
    static let key: CommandOption<String?> = .text("--key", "PUB", help: "check FILE.sig with this public key first, as a client would")

    static var table: CommandTable {
        CommandTable(
            name: "explain", summary: "Show which rule and features apply to a URL for one install, and why",
            discussion: """
                Runs exactly the decision an app makes for a navigation to URL on the install ID: each
                rule in order, whether its pattern matches, the install's rollout bucket for it, and the
                features and engine that result.
                """,
            arguments: [url], options: [installID, config, key])
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let text = arguments[url]
        let path = arguments[config]
        guard let url = URL(string: text), url.scheme != nil else {
            throw CommandLineError.invalid(option: "URL", value: text, expected: "an absolute URL")
        }
        let (config, bytes) = try ConfigCommand.load(path)
        if let key = arguments[key] { try ConfigCommand.verify(path, bytes: bytes, key: key) }
        print(config.features(for: url, installID: arguments[installID]))
        if config.expires <= Date() {
            print("note:       this document expired at \(ConfigCommand.date(config.expires)); a client would use safe defaults")
        }
        return 0
    }
}
