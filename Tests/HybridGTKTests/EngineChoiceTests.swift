import Foundation
import HybridCore
import HybridCrypto
import HybridFixtures
import Testing

/// Remote config's engine choice end to end: a signed document sends one URL to Blink and the
/// rest to WebKit, the app's registry has both engines, and each page opens on its engine.
@Suite("Engine choice end to end", .serialized)
@MainActor
struct EngineChoiceEndToEndTests {
    static let blinkURL = URL(string: "https://a.example/index.html")!
    static let webkitURL = URL(string: "\(TestPages.scheme)://b.example/index.html")!

    /// The app's engines: WebKitGTK by default, Blink when a rule names it.
    static func registry() throws -> EngineRegistry {
        let webkit = try EngineHarness.provider()
        let registry = EngineRegistry(defaultProvider: webkit)
        registry.register(kind: "webkit") { _ in webkit }
        registry.register(kind: "blink") { _ in try BlinkSuiteBrowser.provider() }
        return registry
    }

    /// `https://a.example/*` on Blink for `blinkRollout` % of installs, everything else on WebKit.
    static func document(blinkRollout: Double, killSwitch: Bool = false) throws -> RemoteConfig {
        let created = Date().addingTimeInterval(-60)
        return RemoteConfig(
            version: 1, created: created, expires: created.addingTimeInterval(86_400), killSwitch: killSwitch,
            engines: ["webkit": EngineProfile(kind: "webkit"), "blink": EngineProfile(kind: "blink")],
            rules: [
                ConfigRule(id: "a-on-blink", match: try ConfigURLPattern("https://a.example/*"), rollout: blinkRollout,
                           features: FeatureSet(engine: "blink")),
                ConfigRule(id: "default", match: try ConfigURLPattern("*"), features: FeatureSet(engine: "webkit")),
            ])
    }

    /// A client for `installID` holding `config`, signed and verified as one fetched would be.
    static func client(_ config: RemoteConfig, installID: String) throws -> (RemoteConfigClient, URL) {
        let signer = try Ed25519Signer.generate()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-choice-\(UUID().uuidString)")
        let options = RemoteConfigClient.Options(repository: URL(string: "http://127.0.0.1:9/")!,
                                                 cache: RemoteConfigCache(directory: directory), installID: installID, timeout: 5)
        let client = RemoteConfigClient(options: options, verifier: try Ed25519Verifier(publicKey: signer.publicKey))
        let bytes = try config.encoded()
        try client.accept(document: bytes, signature: DetachedSignature.fileData(try signer.sign(bytes)))
        return (client, directory)
    }

    /// One handler for both pages: on Blink it serves https, on WebKit the custom scheme.
    static func configuration(_ pages: HostPages) -> HybridWebViewConfiguration {
        HybridWebViewConfiguration(engine: EngineConfiguration(schemeHandlers: ["https": pages, TestPages.scheme: pages]))
    }

    @Test func eachURLOpensOnTheEngineItsRuleNames() async throws {
        let (client, directory) = try Self.client(try Self.document(blinkRollout: 100), installID: "install-1")
        defer { try? FileManager.default.removeItem(at: directory) }
        let engines = try Self.registry()
        let pages = HostPages()

        let onBlink = try HybridWebView.make(for: Self.blinkURL, remoteConfig: client, engines: engines, configuration: Self.configuration(pages))
        defer { onBlink.close() }
        let onWebKit = try HybridWebView.make(for: Self.webkitURL, remoteConfig: client, engines: engines, configuration: Self.configuration(pages))
        defer { onWebKit.close() }
        #expect(onBlink.engineName == "blink")
        #expect(onWebKit.engineName == "webkit")

        try await onBlink.loadAndWait(Self.blinkURL, timeout: 30)
        try await onWebKit.loadAndWait(Self.webkitURL)
        #expect(try await onBlink.page("return document.getElementById('content').textContent") == .string("page on a.example"))
        #expect(try await onWebKit.page("return document.getElementById('content').textContent") == .string("page on b.example"))
        let blinkAgent = try await onBlink.page("return navigator.userAgent").stringValue ?? ""
        let webkitAgent = try await onWebKit.page("return navigator.userAgent").stringValue ?? ""
        #expect(blinkAgent.contains("Chrome"), "Blink's user agent: \(blinkAgent)")
        #expect(webkitAgent.contains("AppleWebKit") && !webkitAgent.contains("Chrome"), "WebKit's user agent: \(webkitAgent)")
        #expect(pages.hosts == ["a.example", "b.example"])
    }

    @Test func theKillSwitchOpensEveryURLOnTheDefaultEngine() throws {
        let (client, directory) = try Self.client(try Self.document(blinkRollout: 100, killSwitch: true), installID: "install-1")
        defer { try? FileManager.default.removeItem(at: directory) }
        let view = try HybridWebView.make(for: Self.blinkURL, remoteConfig: client, engines: try Self.registry(),
                                          configuration: Self.configuration(HostPages()))
        defer { view.close() }
        #expect(view.engineName == "webkit")
    }

    @Test func anEngineThatCannotStartFallsBackToTheDefault() throws {
        let (client, directory) = try Self.client(try Self.document(blinkRollout: 100), installID: "install-1")
        defer { try? FileManager.default.removeItem(at: directory) }
        let engines = EngineRegistry(defaultProvider: try EngineHarness.provider())
        engines.register(kind: "blink") { _ in throw HybridError.engine(.unavailable("no Chromium in this test")) }
        let view = try HybridWebView.make(for: Self.blinkURL, remoteConfig: client, engines: engines,
                                          configuration: Self.configuration(HostPages()))
        defer { view.close() }
        #expect(view.engineName == "webkit")
    }

    @Test func aHalfRolloutSendsSomeInstallsToEachEngineStably() async throws {
        let config = try Self.document(blinkRollout: 50)
        let installs = (0..<200).map { "install-\($0)" }
        let kinds = installs.map { config.features(for: Self.blinkURL, installID: $0).engine?.kind }
        #expect(kinds == installs.map { config.features(for: Self.blinkURL, installID: $0).engine?.kind }, "buckets are stable")
        let onBlink = kinds.filter { $0 == "blink" }.count
        #expect((70...130).contains(onBlink), "\(onBlink) of 200 installs on Blink at 50 %")
        #expect(kinds.allSatisfy { $0 == "blink" || $0 == "webkit" })

        // One install on each side: each opens the same URL on its own engine, twice the same.
        let engines = try Self.registry()
        let pages = HostPages()
        for (install, expected) in [(installs[kinds.firstIndex(of: "blink")!], "blink"),
                                    (installs[kinds.firstIndex(of: "webkit")!], "webkit")] {
            let (client, directory) = try Self.client(config, installID: install)
            defer { try? FileManager.default.removeItem(at: directory) }
            for _ in 0..<2 {
                let view = try HybridWebView.make(for: Self.blinkURL, remoteConfig: client, engines: engines, configuration: Self.configuration(pages))
                defer { view.close() }
                #expect(view.engineName == expected, "\(install)")
                if expected == "blink" {
                    // WebKit cannot serve https from a handler; the Blink side proves the page renders.
                    try await view.loadAndWait(Self.blinkURL, timeout: 30)
                    #expect(try await view.page("return document.title") == .string("a.example"))
                }
            }
        }
    }

    /// `hybrid run --engine blink` serves a directory at an https origin and the page runs on Blink.
    @Test func hybridRunOpensADirectoryOnBlink() throws {
        let page = """
            <title>t</title><script>hybrid.ready.then(() => hybrid.call('test', 'done', { ok: true,
              details: { origin: location.origin, chrome: navigator.userAgent.includes('Chrome') } }))</script>
            """
        let run = try RunCommandTests.run(page: page, ["--engine", "blink", "--until", "done", "--timeout", "30"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("\"origin\":\"https://local.hybrid-run.invalid\""), "\(run.output)")
        #expect(run.output.contains("\"chrome\":true"), "\(run.output)")
    }
}

/// Serves a page naming the host it was asked for, and records the hosts (favicons ignored).
@MainActor
final class HostPages: URLSchemeHandler {
    private(set) var hosts: [String] = []

    func respond(to request: SchemeRequest) async throws -> SchemeResponse {
        guard request.url.path != "/favicon.ico" else { return SchemeResponse(status: 404, contentType: "text/plain", data: Data()) }
        let host = request.url.host ?? "?"
        hosts.append(host)
        return SchemeResponse(status: 200, contentType: "text/html",
                              data: Data("<title>\(host)</title><p id=content>page on \(host)</p>".utf8))
    }
}
