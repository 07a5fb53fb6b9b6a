import Foundation
import HybridCommandLine
import HybridCore

enum ConfigTemplateCommand: HybridCommand {
    static let name = "template"
    static let summary = "Write a starting document to edit"
    static let usage = """
        USAGE: hybrid config template --out FILE [--version 1] [--expires-days 30] [--force]

        Writes a valid document: two engine configurations (webkit, blink), an offline-package
        rule, a 10 % Blink rollout and the default rule (which must stay last). Edit it, then
        `hybrid config sign`.
        """

    static func run(_ arguments: Arguments) throws -> Int32 {
        var arguments = arguments
        let out = try arguments.required("--out")
        let version = try arguments.int("--version") ?? 1
        let days = try arguments.double("--expires-days") ?? 30
        let force = arguments.flag("--force")
        _ = try arguments.finish(maxPositionals: 0)
        guard force || !FileManager.default.fileExists(atPath: out) else {
            throw Arguments.Error.invalid(option: "--out", value: out, expected: "a new file (or --force)")
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
