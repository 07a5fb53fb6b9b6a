import Foundation
import HybridCommandLine
import HybridCore

enum ConfigTemplateCommand: HybridCommand {
    static let out: CommandOption<String> = .required("--out", "FILE", help: "where the document goes")
    static let version: CommandOption<Int> = .int("--version", "N", default: 1, help: "the document's version")
    static let expiresDays: CommandOption<Double> = .double("--expires-days", "N", default: 30, help: "clients refuse it after N days")
    static let force: CommandOption<Bool> = .flag("--force", help: "overwrite FILE when it exists")

    static var table: CommandTable {
        CommandTable(
            name: "template", summary: "Write a starting document to edit",
            discussion: """
                Writes a valid document: two engine configurations (webkit, blink), an offline-package
                rule, a 10 % Blink rollout and the default rule (which must stay last). Edit it, then
                `hybrid config sign`.
                """,
            options: [out, version, expiresDays, force])
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let out = arguments[out]
        let version = arguments[version]
        let days = arguments[expiresDays]
        let force = arguments[force]
        guard force || !FileManager.default.fileExists(atPath: out) else {
            throw CommandLineError.invalid(option: "--out", value: out, expected: "a new file (or --force)")
        }
        let now = Date()
        let config = RemoteConfig(
            version: version, created: now, expires: now.addingTimeInterval(days * 86_400),
            engines: ["webkit": EngineProfile(kind: "webkit"), "blink": EngineProfile(kind: "blink", options: ["headless": .bool(true)])],
            rules: [
                ConfigRule(id: "app-offline", match: try ConfigURLPattern("https://m.example.com/app/*"), rollout: 100,
                           features: FeatureSet(offlinePackage: "app", requestProxy: true, cookieSync: true, urlInterception: true, engine: "webkit")),
                ConfigRule(id: "shop-blink", match: try ConfigURLPattern("https://*.example.com/shop/*"), rollout: 10,
                           features: FeatureSet(cookieSync: true, engine: "blink")),
                ConfigRule(id: "default", match: try ConfigURLPattern("*"), rollout: 100,
                           features: FeatureSet(cookieSync: true, engine: "webkit")),
            ])
        try config.validate()
        try config.encoded().write(to: URL(fileURLWithPath: out))
        print("wrote \(out) (version \(version), expires \(ConfigCommand.date(config.expires)))")
        return 0
    }
}
