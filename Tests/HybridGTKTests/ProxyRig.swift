import Foundation
import HybridCore
import HybridServer
import HybridFixtures

/// A container on one engine with the request proxy on, a loopback origin (`127.0.0.1` and `localhost`), the
/// app's jar, and every proxied request recorded as the app's hook sees it.
@MainActor
final class ProxyRig {
    let server: LoopbackServer
    let kind: EngineKind
    let provider: any WebEngineProvider
    let jar = CookieJar()
    let records = Locked<[ProxyRecord]>([])
    let policy: ProxyPolicy
    let view: HybridWebView
    /// The page the tests run in (`/proxy/page` on 127.0.0.1).
    let pageURL: URL

    /// The offline-package stand-in: files served from a directory by the container at
    /// `app://pkg` on WebKit and at `https://pkg.hybrid-test.invalid` on Blink (no custom schemes).
    let packageOrigin: String
    private var packageRoot: URL?

    /// - Parameters:
    ///   - package: Files to serve on `app://pkg/` (a page from an offline package).
    ///   - configure: Adjusts the default policy (both loopback hosts proxied).
    ///   - session: The engine's session (a persistent one has the engine's disk cache: WebKit's
    ///     ephemeral session caches no `fetch`).
    ///   - provider: An engine provider to use instead of a new isolated one with `session`.
    init(_ kind: EngineKind, pages: [String]? = nil, package: [String: String] = [:], session: EngineSessionKind = .ephemeral,
         provider: (any WebEngineProvider)? = nil, configure: (inout ProxyPolicy) -> Void = { _ in }) throws {
        server = try LoopbackServer()
        TestRoutes.install(on: server)
        server.route("/proxy/page") { _ in
            .html("<!doctype html><html><head><meta charset=utf-8><title>proxy</title></head><body><p>page</p></body></html>")
        }
        server.route("/proxy/form") { _ in
            .html("""
                <!doctype html><html><head><meta charset=utf-8><title>form</title></head><body>
                <form id=url method=post action="/echo?via=form"><input name=name value="Zoë &amp; co"><input name=n value=1>
                <button id=go type=submit>go</button></form>
                <form id=multi method=post enctype="multipart/form-data" action="/multipart"><input name=field value=v1></form>
                <form id=get method=get action="/echo"><input name=q value=1></form>
                </body></html>
                """)
        }
        // Its own session: cookies for 127.0.0.1 set by other suites (ports do not separate cookies) must not leak in.
        self.kind = kind
        self.provider = try provider ?? kind.isolatedProvider(session: session)
        let customSchemes = self.provider.capabilities.contains(.customSchemeNavigation)
        packageOrigin = customSchemes ? "app://pkg" : kind.origin("pkg")
        pageURL = server.url("/proxy/page")
        let port = pageURL.port ?? 0
        var policy = try ProxyPolicy(requests: ["http://127.0.0.1:\(port)/*", "http://localhost:\(port)/*"],
                                     pages: pages ?? ["http://127.0.0.1:\(port)", "\(packageOrigin)/*"])
        // Every named request through the proxy: these suites compare it with the engine.
        policy.routing = .always
        configure(&policy)
        self.policy = policy
        let records = self.records
        let proxy = RequestProxy(policy: policy, jar: jar) { record in records.mutate { $0.append(record) } }
        var configuration = HybridWebViewConfiguration()
        if !package.isEmpty {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("hk-proxy-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            for (name, text) in package { try Data(text.utf8).write(to: root.appendingPathComponent(name)) }
            configuration.serveLocalDirectory(root, scheme: customSchemes ? "app" : "https")
            packageRoot = root
        }
        configuration.modules = [ProxyModule(proxy: proxy, allowedOrigins: [OriginPattern("http://127.0.0.1:\(port)"),
                                                                            OriginPattern(packageOrigin)])]
        if let script = ProxyModule.userScript(policy: policy) { configuration.engine.userScripts.append(script) }
        view = try HybridWebView(provider: self.provider, configuration: configuration)
    }

    func url(_ path: String, host: String = "127.0.0.1") -> URL { server.url(path, host: host) }

    /// Opens the test page and waits for the bridge.
    func open(_ url: URL? = nil) async throws {
        try await view.loadAndWait(url ?? pageURL)
        _ = try await js("await window.hybrid.ready; return true")
    }

    /// Runs an async function body in the page.
    func js(_ body: String, _ arguments: [String: JSONValue] = [:]) async throws -> JSONValue {
        try await view.engine.callAsync(body, arguments: arguments)
    }

    var recordCount: Int { records.value.count }

    func close() {
        if let packageRoot { try? FileManager.default.removeItem(at: packageRoot) }
        view.close()
        server.stop()
    }
}
