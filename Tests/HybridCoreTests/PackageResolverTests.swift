import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import HybridCrypto
import Testing

@Suite struct PackageResolverTests {
    /// A fixture with v1 of the sample site (plus a 3 MB media file) installed.
    static func installed(csp: String? = nil, spa: Bool = false) throws -> (PackageFixture, PackageStore, PackageResolver) {
        let fixture = try PackageFixture()
        var files = PackageFixture.sampleSite
        files["media/clip.mp4"] = String(repeating: "0123456789abcdef", count: 3 << 16)
        try fixture.pack(version: 1, files: files, csp: csp, spa: spa)
        let store = fixture.store()
        try fixture.installFromDisk(version: 1, into: store)
        return (fixture, store, PackageResolver(package: try store.activePackage("app"), customScheme: "app"))
    }

    static func request(_ url: String, method: String = "GET", _ headers: [(name: String, value: String)] = []) -> SchemeRequest {
        SchemeRequest(url: URL(string: url)!, method: method, headers: headers)
    }

    static func response(_ resolution: PackageResolver.Resolution) throws -> SchemeResponse {
        guard case .response(let response) = resolution else { Issue.record("expected a response, got \(resolution)"); throw CancellationError() }
        return response
    }

    static func body(_ response: SchemeResponse) async throws -> Data {
        switch response.body {
        case .data(let data): return data
        case .stream(let stream, _):
            var out = Data()
            for try await chunk in stream { out.append(chunk) }
            return out
        }
    }

    @Test func servesEntryWithTypeCachingHeadersAndBothPolicies() async throws {
        let (fixture, _, resolver) = try Self.installed(csp: "script-src 'self'")
        defer { withExtendedLifetime(fixture) {} }
        for url in ["app://m.example.com/app/", "app://m.example.com/app", "https://m.example.com/app/index.html", "APP://M.EXAMPLE.COM/app/index.html"] {
            let response = try Self.response(resolver.resolve(Self.request(url)))
            #expect(response.status == 200, "\(url)")
            #expect(response.header("Content-Type") == "text/html; charset=utf-8")
            #expect(response.header("Cache-Control") == "no-cache")
            #expect(response.header("ETag")?.hasPrefix("\"") == true)
            let csp = try #require(response.header("Content-Security-Policy"))
            #expect(csp.hasPrefix("default-src 'self' https://m.example.com;"))
            #expect(csp.hasSuffix(", script-src 'self'"))
            #expect(String(decoding: try await Self.body(response), as: UTF8.self) == PackageFixture.sampleSite["index.html"])
        }
        let css = try Self.response(resolver.resolve(Self.request("app://m.example.com/app/css/app.css")))
        #expect(css.header("Content-Type") == "text/css; charset=utf-8")
        #expect(css.header("Content-Security-Policy") == nil)
    }

    /// The sources a view adds (its byte channel's loopback endpoint on Blink) go in the default
    /// policy's `connect-src` alone: other directives, and the manifest's own policy, are untouched.
    @Test func connectSourcesWidenOnlyConnectSrc() throws {
        let endpoint = "http://127.0.0.1:41234"
        let policy = PackageResolver.defaultContentSecurityPolicy(origin: "https://m.example.com", connectSources: [endpoint])
        let directives = policy.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let connect = try #require(directives.first { $0.hasPrefix("connect-src ") })
        #expect(connect.hasSuffix("hybrid-bytes: \(endpoint)"))
        #expect(directives.filter { $0.contains(endpoint) }.count == 1)
        #expect(!PackageResolver.defaultContentSecurityPolicy(origin: "https://m.example.com").contains("127.0.0.1"))
    }

    @Test func rangesNotModifiedAndHead() async throws {
        let (fixture, _, resolver) = try Self.installed()
        defer { withExtendedLifetime(fixture) {} }
        let url = "app://m.example.com/app/js/app.js"
        let whole = Data(PackageFixture.sampleSite["js/app.js"]!.utf8)
        let partial = try Self.response(resolver.resolve(Self.request(url, [("Range", "bytes=10-19")])))
        #expect(partial.status == 206)
        #expect(partial.header("Content-Range") == "bytes 10-19/\(whole.count)")
        #expect(try await Self.body(partial) == whole[10..<20])
        let suffix = try Self.response(resolver.resolve(Self.request(url, [("Range", "bytes=-5")])))
        #expect(try await Self.body(suffix) == whole.suffix(5))
        let open = try Self.response(resolver.resolve(Self.request(url, [("Range", "bytes=990-")])))
        #expect(try await Self.body(open) == whole[990...])
        let beyond = try Self.response(resolver.resolve(Self.request(url, [("Range", "bytes=5000-")])))
        #expect(beyond.status == 416)
        #expect(beyond.header("Content-Range") == "bytes */\(whole.count)")
        let multi = try Self.response(resolver.resolve(Self.request(url, [("Range", "bytes=0-1,5-6")])))
        #expect(multi.status == 200)
        // One parser with hybrid serve (ByteRange): an invalid range is rejected, as nginx does
        // (RFC 9110 §14.2 allows ignoring or rejecting it; the two servers used to disagree).
        for invalid in ["bytes=x-y", "bytes=5-2", "bytes=--1", "bytes=0-1;x"] {
            let garbage = try Self.response(resolver.resolve(Self.request(url, [("Range", invalid)])))
            #expect(garbage.status == 416, "\(invalid)")
            #expect(garbage.header("Content-Range") == "bytes */\(whole.count)")
        }
        let otherUnit = try Self.response(resolver.resolve(Self.request(url, [("Range", "items=0-1")])))
        #expect(otherUnit.status == 200)

        let etag = try #require(partial.header("ETag"))
        #expect(try Self.response(resolver.resolve(Self.request(url, [("If-None-Match", etag)]))).status == 304)
        #expect(try Self.response(resolver.resolve(Self.request(url, [("If-None-Match", "\"other\"")]))).status == 200)
        let head = try Self.response(resolver.resolve(Self.request(url, method: "HEAD")))
        #expect(head.header("Content-Length") == String(whole.count))
        #expect(try await Self.body(head).isEmpty)
    }

    @Test func largeMediaIsStreamedAndRangeable() async throws {
        let (fixture, _, resolver) = try Self.installed()
        defer { withExtendedLifetime(fixture) {} }
        let url = "app://m.example.com/app/media/clip.mp4"
        let response = try Self.response(resolver.resolve(Self.request(url)))
        #expect(response.header("Content-Type") == "video/mp4")
        guard case .stream(_, let length) = response.body else { Issue.record("expected a stream"); return }
        #expect(length == Int64(3 << 20))
        #expect(try await Self.body(response).count == 3 << 20)
        let tail = try Self.response(resolver.resolve(Self.request(url, [("Range", "bytes=3145720-")])))
        #expect(String(decoding: try await Self.body(tail), as: UTF8.self) == "89abcdef")
    }

    @Test(arguments: [
        "app://m.example.com/app/%2e%2e/%2e%2e/etc/passwd", "app://m.example.com/app/..%2f..%2fetc/passwd",
        "app://m.example.com/app/%252e%252e/%252e%252e/etc/passwd", "app://m.example.com/app/a%00b",
        "app://m.example.com/app/%5c..%5c..%5cwin.ini", "app://m.example.com/app%2f..%2fsecret",
        "app://m.example.com/app/js/%2e%2e/index.html", "app://m.example.com//etc/passwd",
        "app://evil.example.com/app/index.html",
    ])
    func hostileRequestsAre404(_ url: String) throws {
        let (fixture, _, resolver) = try Self.installed()
        defer { withExtendedLifetime(fixture) {} }
        let response = try Self.response(resolver.resolve(Self.request(url)))
        #expect(response.status == 404)
    }

    /// Served at its real origin (Blink intercepts every https request of the page), another
    /// origin's request is never a package file: it goes to the network as it is.
    @Test(arguments: ["https://m.example.com:8443/app/index.html", "https://evil.example.com/app/index.html",
                      "http://m.example.com/app/index.html"])
    func anotherOriginUnderAWebSchemeGoesToTheNetworkAsItIs(_ url: String) throws {
        let (fixture, _, resolver) = try Self.installed()
        defer { withExtendedLifetime(fixture) {} }
        guard case .network(let target) = resolver.resolve(Self.request(url)) else {
            Issue.record("expected the network for \(url)")
            return
        }
        #expect(target.absoluteString == url)
    }

    @Test func missesFallBackToTheNetworkAtTheRealOrigin() throws {
        let (fixture, _, resolver) = try Self.installed()
        defer { withExtendedLifetime(fixture) {} }
        guard case .network(let url) = resolver.resolve(Self.request("app://m.example.com/app/api/user?id=3")) else {
            Issue.record("expected network"); return
        }
        #expect(url.absoluteString == "https://m.example.com/app/api/user?id=3")
        guard case .network = resolver.resolve(Self.request("app://m.example.com/app/index.html", method: "POST")) else {
            Issue.record("POST must go to the network"); return
        }
        guard case .network(let outside) = resolver.resolve(Self.request("app://m.example.com/other/page.html")) else {
            Issue.record("expected network"); return
        }
        #expect(outside.absoluteString == "https://m.example.com/other/page.html")
        guard case .network = resolver.resolve(Self.request("app://m.example.com/app/deep/route", [("Accept", "text/html")])) else {
            Issue.record("no SPA fallback unless the manifest asks"); return
        }
    }

    @Test func spaFallbackAnswersNavigationsWithTheEntry() throws {
        let (fixture, _, resolver) = try Self.installed(spa: true)
        defer { withExtendedLifetime(fixture) {} }
        let page = try Self.response(resolver.resolve(Self.request("app://m.example.com/app/deep/route")))
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        guard case .network = resolver.resolve(Self.request("app://m.example.com/app/missing.js", [("Accept", "*/*")])) else {
            Issue.record("a missing script is not a navigation"); return
        }
    }

    @Test @MainActor func schemeHandlerServesActiveVersionAndFallsBack() async throws {
        let (fixture, store, _) = try Self.installed()
        let handler = PackageSchemeHandler(store: store, id: "app", customScheme: "app") { _, url in
            SchemeResponse(status: 299, contentType: "text/plain", data: Data(url.absoluteString.utf8))
        }
        let index = try await handler.respond(to: Self.request("app://m.example.com/app/"))
        #expect(index.status == 200)
        let miss = try await handler.respond(to: Self.request("app://m.example.com/app/api"))
        #expect(miss.status == 299)
        #expect(String(decoding: try await Self.body(miss), as: UTF8.self) == "https://m.example.com/app/api")

        var files = PackageFixture.sampleSite
        files["index.html"] = "<title>v2</title>"
        try fixture.pack(version: 2, files: files)
        try fixture.installFromDisk(version: 2, into: store)
        let updated = try await handler.respond(to: Self.request("app://m.example.com/app/index.html"))
        #expect(String(decoding: try await Self.body(updated), as: UTF8.self) == "<title>v2</title>")
        try fixture.installer(store).rollback("app")
        let rolledBack = try await handler.respond(to: Self.request("app://m.example.com/app/index.html"))
        #expect(String(decoding: try await Self.body(rolledBack), as: UTF8.self) == PackageFixture.sampleSite["index.html"])

        let empty = PackageSchemeHandler(store: fixture.store(), id: "none", customScheme: "app") { _, url in
            SchemeResponse(status: 299, contentType: "text/plain", data: Data(url.absoluteString.utf8))
        }
        let nothing = try await empty.respond(to: Self.request("app://m.example.com/app/index.html"))
        #expect(String(decoding: try await Self.body(nothing), as: UTF8.self) == "https://m.example.com/app/index.html")
    }
}
