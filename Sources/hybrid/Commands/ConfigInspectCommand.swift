import Foundation
import HybridCommandLine
import HybridCore

enum ConfigInspectCommand: HybridCommand {
    static let file: CommandArgument<String> = .required("FILE", help: "the document")
    static let key: CommandOption<String?> = .text("--key", "PUB", help: "also verify FILE.sig with this public key file or key directory")

    static var table: CommandTable {
        CommandTable(
            name: "inspect", summary: "Print a document's rules and check its signature",
            discussion: """
                Validates FILE and prints its version, dates, kill switch, engines and rules in order.
                With --key (a public key file or key directory), also verifies FILE.sig; exits 1 when
                the signature is missing or bad, or the document has expired.
                """,
            arguments: [file], options: [key])
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let path = arguments[file]
        let (config, bytes) = try ConfigCommand.load(path)
        let expired = config.expires <= Date()
        print("version:     \(config.version)")
        print("created:     \(ConfigCommand.date(config.created))")
        print("expires:     \(ConfigCommand.date(config.expires))\(expired ? "  (EXPIRED: clients use safe defaults)" : "")")
        print("kill switch: \(config.killSwitch ? "ON (every page gets safe defaults)" : "off")")
        print("engines:     " + config.engines.keys.sorted().map { "\($0) (\(config.engines[$0]!.kind))" }.joined(separator: ", "))
        print("rules:")
        for (index, rule) in config.rules.enumerated() {
            print("  \(index + 1). \(rule.id)  \(rule.match)  rollout \(FeatureDecision.percent(rule.rollout))"
                  + "  engine \(rule.features.engine ?? "default")  features: \(rule.features.summary)")
        }
        var ok = !expired
        if let key = arguments[key] {
            do {
                try ConfigCommand.verify(path, bytes: bytes, key: key)
                print("signature:   ok")
            } catch {
                print("signature:   FAIL \(error)")
                ok = false
            }
        }
        return ok ? 0 : 1
    }
}
