import Foundation
import HybridCore
import Testing

/// Data prefetch without an engine: template expansion the page script must match, and the
/// failure and refusal paths that leave the page to make its own request.
@Suite("Data prefetcher")
struct DataPrefetcherTests {
    @Test func templatesExpandQueryValuesAsEncodeURIComponentDoes() throws {
        let rule = PrefetchRule(pages: try ConfigURLPattern("*"), key: "k",
                                url: "https://api.example.com/item?id={query.id}&q={query.q}&none={query.missing}")
        let page = URL(string: "app://m.example.com/item.html?id=42&q=a%20b%26c%3Dd/%C3%A9~*'()!#top")!
        // encodeURIComponent('a b&c=d/é~*\'()!') === 'a%20b%26c%3Dd%2F%C3%A9~*\'()!'
        #expect(rule.requestURL(for: page)?.absoluteString == "https://api.example.com/item?id=42&q=a%20b%26c%3Dd%2F%C3%A9~*'()!&none=")
        let notHTTP = PrefetchRule(pages: try ConfigURLPattern("*"), key: "k", url: "file:///etc/passwd?{query.id}")
        #expect(notHTTP.requestURL(for: page) == nil)
    }

    @Test func onlyMatchingPagesStartAndAFailedPrefetchIsNil() async throws {
        // Port 1 refuses the connection: the prefetch fails, the page would make its own request.
        let prefetcher = try DataPrefetcher(rules: [
            PrefetchRule(pages: try ConfigURLPattern("app://m.example.com/item/*"), key: "item", url: "http://127.0.0.1:1/item?id={query.id}"),
        ], jar: nil)
        #expect(prefetcher.start(for: URL(string: "app://m.example.com/other/?id=1")!).isEmpty)
        let page = URL(string: "app://m.example.com/item/?id=1")!
        #expect(prefetcher.start(for: page) == ["item"])
        #expect(prefetcher.pending == 1)
        let origin = BridgeOrigin(url: page)
        #expect(await prefetcher.take("item", page: page.absoluteString, origin: nil) == nil, "no origin, nothing")
        #expect(prefetcher.pending == 1)
        #expect(await prefetcher.take("item", page: page.absoluteString, origin: origin) == nil, "it failed")
        #expect(prefetcher.pending == 0, "taken, even though it failed")
        prefetcher.start(for: page)
        prefetcher.discardAll()
        #expect(prefetcher.pending == 0)
    }
}
