import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// `hybrid run PACKAGE_ID` as an app opens a package: on both engines, its files checked before
/// they are served (a damaged one repaired from the repository, or never served), a rollback said
/// in the output and the report, and remote config's prefetch reaching the page.
@Suite("hybrid run: installed packages", .serialized)
struct RunPackageTests {
    typealias Run = RunCommandTests.Run

    /// A published repository on loopback and a store that installed `shop` from it.
    final class Published {
        let dir = RunConfigTests.temporary("run-package")
        var site: URL { dir.appendingPathComponent("site") }
        var repo: URL { dir.appendingPathComponent("repo") }
        var store: URL { dir.appendingPathComponent("store") }
        var keys: URL { dir.appendingPathComponent("keys") }
        private(set) var server: StaticSiteServer?

        init() throws {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            #expect(try RunCommandTests.hybrid(["keygen", "--out", keys.path]).status == 0)
        }

        deinit {
            server?.stop()
            try? FileManager.default.removeItem(at: dir)
        }

        /// Packs `files` as version `version` of `shop` and installs it into the store.
        func publish(version: Int, _ files: [String: String]) throws {
            try? FileManager.default.removeItem(at: site)
            try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
            for (name, text) in files { try Data(text.utf8).write(to: site.appendingPathComponent(name)) }
            #expect(try RunCommandTests.hybrid(["pack", site.path, "--id", "shop", "--version", "\(version)", "--origin",
                                                "https://m.example.com/shop/", "--key", keys.appendingPathComponent("private").path,
                                                "--repo", repo.path]).status == 0)
            if server == nil { server = try StaticSiteServer(root: repo) }
            let update = try RunCommandTests.hybrid(["update", "--repo", repoURL, "--key", keys.appendingPathComponent("public").path,
                                                     "--store", store.path, "--id", "shop"])
            #expect(update.status == 0, "\(update.output)")
        }

        var repoURL: String { server?.url.absoluteString ?? "" }

        func stopServer() {
            server?.stop()
            server = nil
        }

        /// The blob in the store holding `path` of the active version.
        func blob(_ path: String) throws -> URL {
            let package = try PackageStore(root: store).activePackage("shop")
            let file = try #require(package.manifest.files.first { $0.path.value == path })
            return package.contentsURL(of: file)
        }

        func run(_ arguments: [String]) throws -> Run {
            try RunCommandTests.hybridWithErrors(["run", "shop", "--store", store.path, "--headless", "--timeout", "20"] + arguments)
        }
    }

    /// A page whose script and style sheet say whether they arrived whole.
    static let shop: [String: String] = [
        "index.html": """
            <title>shop</title><link rel="stylesheet" href="style.css"><script src="app.js"></script>
            <script>
            addEventListener('load', () => hybrid.ready.then(() => hybrid.call('test', 'done', { ok: true, details: {
              href: location.href, app: window.appLoaded === true,
              style: getComputedStyle(document.documentElement).getPropertyValue('--shop').trim() } })));
            </script>
            """,
        "app.js": "window.appLoaded = true; /* " + String(repeating: "a", count: 2000) + " */\n",
        "style.css": ":root { --shop: whole; } /* " + String(repeating: "s", count: 2000) + " */\n",
    ]

    static func details(_ run: Run) throws -> JSONValue {
        let line = run.output.split(separator: "\n").last { $0.hasPrefix("{") }
        return try JSONValue(jsonText: line.map(String.init) ?? "null")
    }

    /// Zeroes `app.js`'s blob (same size) and truncates `style.css`'s, as a power cut or a cleaner might.
    static func damage(_ published: Published) throws {
        let app = try published.blob("app.js")
        let size = try FileManager.default.attributesOfItem(atPath: app.path)[.size] as? Int ?? 0
        try Data(count: size).write(to: app)
        let style = try published.blob("style.css")
        let handle = try FileHandle(forWritingTo: style)
        try handle.truncate(atOffset: 10)
        try handle.close()
    }

    @Test(arguments: ["webkit", "blink"])
    func aDamagedInstalledFileIsNeverServedAndIsRepairedFromTheRepository(_ engine: String) throws {
        let published = try Published()
        try published.publish(version: 1, Self.shop)

        let clean = try published.run(["--engine", engine, "--until", "done"])
        #expect(clean.status == 0, "\(clean.output)")
        let opened = try Self.details(clean)
        // Blink cannot navigate to a custom scheme: the package is served at its real https origin.
        #expect(opened["href"] == .string(engine == "blink" ? "https://m.example.com/shop/index.html" : "app://m.example.com/shop/index.html"))
        #expect(opened["app"] == true && opened["style"] == "whole")

        try Self.damage(published)
        let repaired = try published.run(["--engine", engine, "--until", "done", "--repo", published.repoURL])
        #expect(repaired.status == 0, "\(repaired.output)")
        #expect(repaired.output.contains("2 damaged (app.js, style.css), removed from the store"), "\(repaired.output)")
        #expect(repaired.output.contains("repaired from \(published.repoURL): app.js, style.css"), "\(repaired.output)")
        let whole = try Self.details(repaired)
        #expect(whole["app"] == true && whole["style"] == "whole")

        // Offline and without a repository: nothing damaged is served; the page is told by its own
        // failing loads (the package's origin does not resolve), and the store is left clean.
        try Self.damage(published)
        published.stopServer()
        let offline = try published.run(["--engine", engine, "--until", "done"])
        #expect(offline.output.contains("not repaired (no --repo to fetch from), the network answers for: app.js, style.css"), "\(offline.output)")
        let partial = try Self.details(offline)
        #expect(partial["app"] == false, "the zeroed script must never run")
        #expect(partial["style"] == "", "the truncated style sheet must never apply")
        #expect(!FileManager.default.fileExists(atPath: try published.blob("app.js").path))
    }

    @Test func aURLTheEngineCannotNavigateToFailsAtOnceWithTheReason() throws {
        let started = Date()
        let run = try RunCommandTests.hybridWithErrors(["run", "app://m.example.com/shop/index.html", "--engine", "blink",
                                                        "--headless", "--timeout", "30"])
        #expect(run.status == 2)
        #expect(run.output.contains("cannot navigate to app: URLs"), "\(run.output)")
        #expect(Date().timeIntervalSince(started) < 20, "it must not wait out --timeout")
    }

    @Test func aRollbackIsSaidAndEachLaunchIsAttributedToTheVersionThatRan() throws {
        let published = try Published()
        let ready = """
            <title>v1</title><script>hybrid.ready.then(async () => { await hybrid.call('app', 'ready');
              await hybrid.call('test', 'done', { ok: true, details: { version: 1 } }); });</script>
            """
        try published.publish(version: 1, ["index.html": ready])
        #expect(try published.run(["--until", "done"]).status == 0)   // confirms version 1
        try published.publish(version: 2, ["index.html": "<title>v2</title><script>throw new Error('v2 is broken')</script>"])

        let report = published.dir.appendingPathComponent("report.json")
        let run = try published.run(["--until", "done", "--report", report.path])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("rolled back 'shop' from version 2 to 1 [script_error]: version 2 is blocked because its script threw"),
                "\(run.output)")
        #expect(try Self.details(run)["version"] == 1)
        let health = try JSONValue(jsonText: String(decoding: Data(contentsOf: report), as: UTF8.self))["health"]
        #expect(health?["release"] == "shop@1")
        let rollback = health?["rollbacks"]?.arrayValue?.first
        #expect(rollback?["from"] == 2 && rollback?["to"] == 1)
        #expect(rollback?["reason"] == "script_error")
        let releases = health?["releases"]?.arrayValue ?? []
        #expect(releases.count == 2)
        #expect(releases.first?["release"] == "shop@2" && releases.first?["launches"] == 1 && releases.first?["ready_ms"] == .null)
        #expect(releases.last?["release"] == "shop@1" && releases.last?["launches"] == 1)
        if case .number = releases.last?["ready_ms"] {} else { Issue.record("the ready mark belongs to version 1: \(String(describing: releases))") }
    }

    @Test func aPrefetchDeclaredInTheConfigReachesThePageAndNoneIsNull() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let hits = Locked(0)
        server.route("/api/item") { _ in
            hits.mutate { $0 += 1 }
            return ServerResponse(headers: ["Content-Type": "application/json"], body: Data(#"{"item": 42}"#.utf8))
        }
        server.route("/page") { _ in
            .html("""
                <title>p</title><script>hybrid.ready.then(async () => {
                  const item = await hybrid.prefetched('item');
                  const none = await hybrid.prefetched('nothing-declared');
                  await hybrid.call('test', 'done', { ok: true, details: { item: item && await item.json(), none } });
                });</script>
                """)
        }
        let port = server.port
        let dir = RunConfigTests.temporary("run-prefetch")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("config.json")
        try Data("""
            {"format": 1, "version": 1, "created": "2026-01-01T00:00:00Z", "expires": "2099-01-01T00:00:00Z",
             "killSwitch": false, "engines": {},
             "rules": [{"id": "page", "match": "http://127.0.0.1:\(port)/page*",
                        "features": {"prefetch": [{"key": "item", "url": "http://127.0.0.1:\(port)/api/item"}]}},
                       {"id": "default", "match": "*", "features": {}}]}
            """.utf8).write(to: config)
        let run = try RunCommandTests.hybridWithErrors(["run", "http://127.0.0.1:\(port)/page", "--config", config.path,
                                                        "--until", "done", "--headless", "--timeout", "20"])
        #expect(run.status == 0, "\(run.output)")
        let details = try Self.details(run)
        #expect(details["item"]?["item"] == 42)
        #expect(details["none"] == .null)
        #expect(hits.value == 1, "one request: the prefetch, which the page took")

        // Without a config nothing is prefetched, and asking is `null`, not an error.
        let plain = try RunCommandTests.hybridWithErrors(["run", "http://127.0.0.1:\(port)/page", "--until", "done", "--headless", "--timeout", "20"])
        #expect(plain.status == 0, "\(plain.output)")
        #expect(try Self.details(plain)["item"] == .null)
    }
}
