import Foundation
import HybridCommandLine
import HybridCore

enum ConfigExplainCommand: HybridCommand {
    static let name = "explain"
    static let summary = "Show which rule and features apply to a URL for one install, and why"
    static let usage = """
        USAGE: hybrid config explain URL --install-id ID [--config FILE] [--key PUB]

        Runs exactly the decision an app makes for a navigation to URL on the install ID: each
        rule in order, whether its pattern matches, the install's rollout bucket for it, and the
        features and engine that result. FILE defaults to config/latest.json. With --key the
        signature is checked first, as a client would.
        """

    static func run(_ arguments: Arguments) throws -> Int32 {
        var arguments = arguments
        let installID = try arguments.required("--install-id")
        let path = try arguments.option("--config") ?? ConfigRepositoryLayout.document
        let key = try arguments.option("--key")
        let positionals = try arguments.finish(maxPositionals: 1)
        guard let text = positionals.first else { throw Arguments.Error.missingRequired("URL") }
        guard let url = URL(string: text), url.scheme != nil else {
            throw Arguments.Error.invalid(option: "URL", value: text, expected: "an absolute URL")
        }
        let (config, bytes) = try ConfigCommand.load(path)
        if let key { try ConfigCommand.verify(path, bytes: bytes, key: key) }
        print(config.features(for: url, installID: installID))
        if config.expires <= Date() {
            print("note:       this document expired at \(ConfigCommand.date(config.expires)); a client would use safe defaults")
        }
        return 0
    }
}
