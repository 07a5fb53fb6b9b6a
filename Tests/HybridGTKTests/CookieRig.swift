import Foundation
import HybridCore
import HybridServer
import HybridFixtures

/// A real loopback origin (two hosts: `127.0.0.1` and `localhost`), a provider of one engine
/// with its own session, the app's jar and a running ``CookieSync`` between them.
@MainActor
final class CookieRig {
    let server: LoopbackServer
    let kind: EngineKind
    let provider: any WebEngineProvider
    let jar: CookieJar
    let sync: CookieSync
    /// The `Cookie` header each `/record/NAME` request carried (`""` when none).
    let recorded = RequestLog()
    private var engines: [any WebEngine] = []

    init(_ kind: EngineKind, session: EngineSessionKind = .ephemeral, jar: CookieJar = CookieJar(), syncing: Bool = true) async throws {
        server = try LoopbackServer()
        TestRoutes.install(on: server)
        let recorded = self.recorded
        server.route("/record") { request in
            recorded.set(request.path, request.headers["Cookie"] ?? "")
            return request.path.hasSuffix(".png")
                ? ServerResponse(headers: ["Content-Type": "image/png"], body: Data())
                : .html("<p>recorded</p>")
        }
        self.kind = kind
        provider = try kind.isolatedProvider(session: session)
        self.jar = jar
        sync = CookieSync(jar: jar, store: provider.cookieStore)
        if syncing { await sync.start() }
    }

    /// A page on either host, served by the test (for iframes and subresources).
    func page(_ path: String, _ html: String) {
        server.route(path) { _ in .html(html) }
    }

    func url(_ path: String, host: String = "127.0.0.1") -> URL { server.url(path, host: host) }

    func engine(_ scripts: [UserScript] = []) throws -> any WebEngine {
        let engine = try provider.makeEngine(EngineConfiguration(userScripts: scripts))
        engines.append(engine)
        return engine
    }

    /// Loads `url` after making the engine's store ready for it, as a container does.
    func open(_ url: URL, in engine: any WebEngine) async throws {
        await sync.prepareNavigation(to: url)
        try await engine.loadAndWait(url)
    }

    func documentCookie(_ engine: any WebEngine) async throws -> String {
        try await engine.evaluate("document.cookie").stringValue ?? ""
    }

    /// What the server saw in the document's own request (`/cookies/page`).
    func serverSawCookies(_ engine: any WebEngine) async throws -> [String] {
        let value = try await engine.evaluate("window.serverCookies ? window.serverCookies.cookies.map(c => c[0]) : null")
        return value.arrayValue?.compactMap(\.stringValue) ?? []
    }

    func close() {
        sync.stop()
        for engine in engines { engine.close() }
        server.stop()
    }

    /// Closes everything and ends the provider (a Blink browser flushes a persistent profile).
    func shutdown() async {
        close()
        await kind.release(provider)
    }
}

/// Request facts recorded on the server thread, read on the main actor.
final class RequestLog: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: String] = [:]
    func set(_ key: String, _ value: String) { lock.withLock { values[key] = value } }
    subscript(key: String) -> String? { lock.withLock { values[key] } }
}
