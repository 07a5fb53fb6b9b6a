import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import HybridCrypto
import HybridServer
import Testing

@Suite(.serialized) struct PackageSchemeFallbackTests {
    /// A package whose origin is the loopback server itself, installed through the updater.
    static func installed() async throws -> (UpdateFixture, PackageSchemeHandler, URL) {
        let fixture = try UpdateFixture()
        let origin = fixture.server.server.url("/app/")
        let site = fixture.root.appendingPathComponent("site")
        for (path, contents) in UpdateFixture.site(version: 1) {
            let url = site.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: url)
        }
        let writer = PackageWriter(repository: fixture.repository, platform: fixture.platform, signer: fixture.signer)
        _ = try writer.pack(site, options: .init(id: "app", version: 1, origin: origin.absoluteString))
        _ = try await fixture.updater.update("app")
        return (fixture, PackageSchemeHandler(store: fixture.store, id: "app", customScheme: "app"), origin)
    }

    @Test @MainActor func missFallsBackToTheOriginThroughTheAppsCookieJar() async throws {
        let (fixture, handler, origin) = try await Self.installed()
        fixture.server.server.route("/app/api") { request in
            ServerResponse.text("cookie=\(request.headers["Cookie"] ?? "none") method=\(request.method) body=\(String(decoding: request.body, as: UTF8.self))")
                .adding(header: "Set-Cookie", "seen=yes; Path=/")
        }
        let cookie = try #require(HTTPCookie(properties: [.name: "session", .value: "s3cret", .domain: origin.host!, .path: "/"]))
        HTTPCookieStorage.shared.setCookie(cookie)
        defer {
            for cookie in HTTPCookieStorage.shared.cookies(for: origin) ?? [] { HTTPCookieStorage.shared.deleteCookie(cookie) }
        }
        let url = URL(string: "app://\(origin.host!):\(origin.port!)/app/api/me")!
        let response = try await handler.respond(to: SchemeRequest(url: url, method: "POST", body: Data("x=1".utf8)))
        guard case .data(let body) = response.body else { Issue.record("expected data"); return }
        let text = String(decoding: body, as: UTF8.self)
        #expect(response.status == 200)
        #expect(text.contains("cookie=session=s3cret"))
        #expect(text.contains("method=POST body=x=1"))
        #expect(HTTPCookieStorage.shared.cookies(for: origin)?.contains { $0.name == "seen" } == true)

        // A packaged file never touches the network.
        fixture.server.resetLog()
        let index = try await handler.respond(to: SchemeRequest(url: URL(string: "app://\(origin.host!):\(origin.port!)/app/index.html")!))
        #expect(index.status == 200)
        #expect(fixture.server.requests.isEmpty)
    }
}
