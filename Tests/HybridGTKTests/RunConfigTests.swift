import Foundation
import HybridCore
import HybridServer
import Testing

/// `hybrid run --config FILE` and `hybrid run PACKAGE_ID`: a remote-config document decides the
/// page's engine and features as it would in an app; an installed package opens from the store.
@Suite("hybrid run --config and package ids", .serialized)
struct RunConfigTests {
    typealias Run = RunCommandTests.Run

    /// A document whose first rule takes the loopback page onto Blink for `rollout` percent of installs.
    static func config(port: Int, rollout: Double, version: Int = 1) -> String {
        """
        {"format": 1, "version": \(version), "created": "2026-01-01T00:00:00Z", "expires": "2099-01-01T00:00:00Z",
         "killSwitch": false, "engines": {"webkit": {"kind": "webkit"}, "blink": {"kind": "blink"}},
         "rules": [{"id": "loopback-blink", "match": "http://127.0.0.1:\(port)/*", "rollout": \(rollout),
                    "features": {"engine": "blink", "cookieSync": true}},
                   {"id": "default", "match": "*", "features": {"engine": "webkit"}}]}
        """
    }

    static func temporary(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("hk-\(name)-\(UUID().uuidString)")
    }

    /// A loopback page that reports its engine (from the user agent) to the test module.
    static func enginePage() throws -> LoopbackServer {
        let server = try LoopbackServer()
        server.route("/page") { _ in
            .html("""
                <title>engine</title><script>hybrid.ready.then(() => hybrid.call('test', 'done', { ok: true,
                  details: { engine: /Chrome\\//.test(navigator.userAgent) ? 'blink' : 'webkit' } }))</script>
                """)
        }
        return server
    }

    static func details(_ run: Run) throws -> JSONValue {
        try JSONValue(jsonText: run.output.split(separator: "\n").last.map(String.init) ?? "null")
    }

    @Test func theConfigsRuleAndRolloutPickTheEngine() throws {
        let server = try Self.enginePage()
        defer { server.stop() }
        let file = Self.temporary("config.json")
        defer { try? FileManager.default.removeItem(at: file) }
        let common = ["run", server.url("/page").absoluteString, "--config", file.path, "--until", "done", "--headless", "--timeout", "40"]

        try Data(Self.config(port: server.port, rollout: 100).utf8).write(to: file)
        let inRollout = try RunCommandTests.hybrid(common)
        #expect(inRollout.status == 0)
        #expect(inRollout.output.contains("rule 'loopback-blink'") && inRollout.output.contains("unsigned"))
        #expect(try Self.details(inRollout)["engine"] == "blink")

        // Outside the rollout, the default rule applies: the same page on WebKit.
        try Data(Self.config(port: server.port, rollout: 0).utf8).write(to: file)
        let outside = try RunCommandTests.hybrid(common)
        #expect(outside.status == 0)
        #expect(outside.output.contains("rule 'default'"))
        #expect(try Self.details(outside)["engine"] == "webkit")
    }

    @Test func aSignedConfigIsVerifiedAndABadOneStopsTheRunWithTwo() throws {
        let server = try Self.enginePage()
        defer { server.stop() }
        let dir = Self.temporary("signed")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("config.json")
        try Data(Self.config(port: server.port, rollout: 0).utf8).write(to: file)
        let keys = dir.appendingPathComponent("keys"), other = dir.appendingPathComponent("other")
        #expect(try RunCommandTests.hybrid(["keygen", "--out", keys.path]).status == 0)
        #expect(try RunCommandTests.hybrid(["keygen", "--out", other.path]).status == 0)
        let run = ["run", server.url("/page").absoluteString, "--config", file.path, "--until", "done", "--headless", "--timeout", "30"]

        // No signature yet: with --key that is refused, before anything opens.
        let missing = try RunCommandTests.hybridWithErrors(run + ["--key", keys.appendingPathComponent("public").path])
        #expect(missing.status == 2)
        #expect(missing.output.contains("missing_signature"))

        #expect(try RunCommandTests.hybrid(["config", "sign", file.path, "--key", keys.appendingPathComponent("private").path]).status == 0)
        let signed = try RunCommandTests.hybrid(run + ["--key", keys.appendingPathComponent("public").path])
        #expect(signed.status == 0)
        #expect(signed.output.contains("signature verified"))

        let wrongKey = try RunCommandTests.hybridWithErrors(run + ["--key", other.appendingPathComponent("public").path])
        #expect(wrongKey.status == 2)
        #expect(wrongKey.output.contains("bad_signature"))

        // Not JSON, and JSON that is not a valid document (no default rule last): exit 2, said why.
        try Data("{ not json".utf8).write(to: file)
        let garbage = try RunCommandTests.hybridWithErrors(run)
        #expect(garbage.status == 2)
        #expect(garbage.output.contains("invalid_config") && garbage.output.contains(file.path))
        try Data(Self.config(port: server.port, rollout: 0).replacingOccurrences(of: "\"match\": \"*\"", with: "\"match\": \"https://x.example/*\"").utf8).write(to: file)
        let invalid = try RunCommandTests.hybridWithErrors(run)
        #expect(invalid.status == 2)
        #expect(invalid.output.contains("the last rule must be the default"))
        let unreadable = try RunCommandTests.hybridWithErrors(["run", server.url("/page").absoluteString, "--config", dir.appendingPathComponent("none.json").path, "--headless"])
        #expect(unreadable.status == 2)
        #expect(unreadable.output.contains("cannot read"))
    }

    @Test func anInstalledPackageIdOpensFromTheStoreThroughTheCustomScheme() throws {
        let dir = Self.temporary("package")
        defer { try? FileManager.default.removeItem(at: dir) }
        let site = dir.appendingPathComponent("site"), repo = dir.appendingPathComponent("repo")
        let store = dir.appendingPathComponent("store"), keys = dir.appendingPathComponent("keys")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        try Data("""
            <title>pkg</title><script src="app.js"></script>
            """.utf8).write(to: site.appendingPathComponent("index.html"))
        try Data("""
            hybrid.ready.then(() => hybrid.call('test', 'done', { ok: true, details: { href: location.href, version: 'v1' } }));
            """.utf8).write(to: site.appendingPathComponent("app.js"))
        #expect(try RunCommandTests.hybrid(["keygen", "--out", keys.path]).status == 0)
        #expect(try RunCommandTests.hybrid(["pack", site.path, "--id", "shop", "--version", "1", "--origin", "https://m.example.com/shop/",
                                            "--key", keys.appendingPathComponent("private").path, "--repo", repo.path]).status == 0)
        let server = try StaticSiteServer(root: repo)
        defer { server.stop() }
        #expect(try RunCommandTests.hybrid(["update", "--repo", server.url.absoluteString, "--key", keys.appendingPathComponent("public").path,
                                            "--store", store.path, "--id", "shop"]).status == 0)

        let run = try RunCommandTests.hybrid(["run", "shop", "--store", store.path, "--until", "done", "--headless", "--timeout", "30"])
        #expect(run.status == 0)
        let details = try Self.details(run)
        #expect(details["href"] == "app://m.example.com/shop/index.html")
        #expect(details["version"] == "v1")

        let unknown = try RunCommandTests.hybridWithErrors(["run", "cart", "--store", store.path, "--headless"])
        #expect(unknown.status == 2)
        #expect(unknown.output.contains("no package 'cart'") && unknown.output.contains("installed: shop"))
        let noStore = try RunCommandTests.hybridWithErrors(["run", "shop", "--headless"])
        #expect(noStore.status == 2)
        #expect(noStore.output.contains("--store"))
    }

    @Test func everyCommandHasItsHelpAndRunsHelpNamesItsOptions() throws {
        let help = try RunCommandTests.hybrid(["--help"])
        #expect(help.status == 0)
        let commands = help.output.split(separator: "\n", omittingEmptySubsequences: false).drop { !$0.hasPrefix("COMMANDS:") }.dropFirst()
            .prefix { !$0.isEmpty }.compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(commands.count >= 10)
        for command in commands {
            let usage = try RunCommandTests.hybrid([command, "--help"])
            #expect(usage.status == 0, "\(command)")
            #expect(usage.output.hasPrefix("USAGE: hybrid \(command)"), "\(command)")
            #expect(try RunCommandTests.hybrid(["help", command]).output == usage.output)
        }
        let run = try RunCommandTests.hybrid(["run", "--help"]).output
        for option in ["--engine", "--entry", "--headless", "--screenshot", "--report", "--until", "--timeout", "--allow",
                       "--cookies", "--store", "--repo", "--config", "--key", "--install-id", "--size", "--verbose", "PACKAGE_ID"] {
            #expect(run.contains(option), "run --help lacks \(option)")
        }
    }
}
