import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

@Suite("Engine cookie store", .serialized)
@MainActor
struct EngineCookieTests {
    @Test(arguments: EngineKind.allCases)
    func setGetForURLAndDelete(_ kind: EngineKind) async throws {
        let provider = try kind.isolatedProvider()
        let store = provider.cookieStore
        let secure = Cookie(name: "s", value: "1", domain: "shop.example.com", path: "/cart", secure: true, httpOnly: true)
        let domainWide = Cookie(name: "d", value: "2", domain: "example.com", hostOnly: false)
        let other = Cookie(name: "o", value: "3", domain: "other.test")
        for cookie in [secure, domainWide, other] { try await store.setCookie(cookie) }
        let forCart = try await store.cookies(for: URL(string: "https://shop.example.com/cart/items")!)
        #expect(Set(forCart.map(\.name)) == ["s", "d"])
        #expect(forCart.first { $0.name == "s" }?.httpOnly == true)
        #expect(forCart.first { $0.name == "d" }?.hostOnly == false)
        let insecure = try await store.cookies(for: URL(string: "http://shop.example.com/cart")!)
        #expect(insecure.map(\.name) == ["d"])
        #expect(try await store.allCookies().count == 3)
        try await store.deleteCookie(other)
        #expect(Set(try await store.allCookies().map(\.name)) == ["s", "d"])
        await kind.release(provider)
    }

    @Test(arguments: EngineKind.allCases)
    func changesAreObservedFromTheNetworkAndFromScripts(_ kind: EngineKind) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/c") { _ in ServerResponse(headers: ["Set-Cookie": "fromServer=yes; Path=/; HttpOnly", "Content-Type": "text/html"], body: Data("<p>c</p>".utf8)) }
        let provider = try kind.isolatedProvider()
        var changes = 0
        let token = provider.cookieStore.observeChanges { changes += 1 }
        let engine = try provider.makeEngine(EngineConfiguration())
        // Each change is its own notification where the engine signals them; a polling engine may merge the two.
        let expected = kind.capabilities.contains(.cookieChangeEvents) ? 2 : 1
        try await engine.loadAndWait(server.url("/c"))
        _ = try await engine.evaluate("document.cookie = 'fromScript=1; path=/'")
        // A script's cookie reaches the network process asynchronously.
        try await eventually("both changes observed") {
            try await provider.cookieStore.cookies(for: server.url("/")).contains { $0.name == "fromScript" } && changes >= expected
        }
        let cookies = try await provider.cookieStore.cookies(for: server.url("/"))
        #expect(cookies.first { $0.name == "fromServer" }?.httpOnly == true)
        #expect(cookies.contains { $0.name == "fromScript" && $0.value == "1" })
        #expect(try await engine.evaluate("document.cookie") == "fromScript=1")
        // A second observer, subscribed before the first is cancelled (so a polling store keeps
        // its baseline), is the barrier: once it has seen the next change, a cancelled observer
        // that still received changes would have been called too.
        var witnessed = 0
        let witness = provider.cookieStore.observeChanges { witnessed += 1 }
        token.cancel()
        let before = changes, witnessedBefore = witnessed
        _ = try await engine.evaluate("document.cookie = 'later=1'")
        try await eventually("the change to reach a live observer") { witnessed > witnessedBefore }
        #expect(changes == before)
        witness.cancel()
        engine.close()
        await kind.release(provider)
    }
}
