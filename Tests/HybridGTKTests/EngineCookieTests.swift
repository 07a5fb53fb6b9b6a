import Foundation
import HybridCore
import HybridGTK
import HybridServer
import HybridTestSupport
import Testing

@Suite("Engine cookie store", .serialized)
@MainActor
struct EngineCookieTests {
    @Test func setGetForURLAndDelete() async throws {
        let provider = try EngineHarness.isolatedProvider()
        let store = provider.cookieStore
        let secure = Cookie(name: "s", value: "1", domain: "shop.example", path: "/cart", secure: true, httpOnly: true)
        let domainWide = Cookie(name: "d", value: "2", domain: "example", hostOnly: false)
        let other = Cookie(name: "o", value: "3", domain: "other.test")
        for cookie in [secure, domainWide, other] { try await store.setCookie(cookie) }
        let forCart = try await store.cookies(for: URL(string: "https://shop.example/cart/items")!)
        #expect(Set(forCart.map(\.name)) == ["s", "d"])
        #expect(forCart.first { $0.name == "s" }?.httpOnly == true)
        let insecure = try await store.cookies(for: URL(string: "http://shop.example/cart")!)
        #expect(insecure.map(\.name) == ["d"])
        #expect(try await store.allCookies().count == 3)
        try await store.deleteCookie(other)
        #expect(Set(try await store.allCookies().map(\.name)) == ["s", "d"])
    }

    @Test func changesAreObservedFromTheNetworkAndFromScripts() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/c") { _ in ServerResponse(headers: ["Set-Cookie": "fromServer=yes; Path=/; HttpOnly", "Content-Type": "text/html"], body: Data("<p>c</p>".utf8)) }
        let provider = try EngineHarness.isolatedProvider()
        var changes = 0
        let token = provider.cookieStore.observeChanges { changes += 1 }
        let engine = try provider.makeGTKEngine(EngineConfiguration())
        defer { engine.close() }
        try await engine.loadAndWait(server.url("/c"))
        _ = try await engine.evaluate("document.cookie = 'fromScript=1; path=/'")
        // A script's cookie reaches the network process asynchronously.
        try await eventually("both changes observed") {
            try await provider.cookieStore.cookies(for: server.url("/")).contains { $0.name == "fromScript" } && changes >= 2
        }
        let cookies = try await provider.cookieStore.cookies(for: server.url("/"))
        #expect(cookies.first { $0.name == "fromServer" }?.httpOnly == true)
        #expect(cookies.contains { $0.name == "fromScript" && $0.value == "1" })
        #expect(try await engine.evaluate("document.cookie") == "fromScript=1")
        token.cancel()
        let before = changes
        _ = try await engine.evaluate("document.cookie = 'later=1'")
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(changes == before)
    }
}
