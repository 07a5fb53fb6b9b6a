import Foundation
import HybridCore
import Testing

/// Prefetch declarations in a remote-config rule: what a document may declare, what it may not
/// (each refused with `invalid_prefetch` before the document is used), and how a decision binds
/// them to the rule's pages.
@Suite("Remote config: prefetch declarations")
struct PrefetchConfigTests {
    static func document(_ prefetch: String) -> Data {
        Data("""
            {"format": 1, "version": 3, "created": "2026-12-01T00:00:00Z", "expires": "2026-12-31T00:00:00Z",
             "killSwitch": false, "engines": {},
             "rules": [
               {"id": "item", "match": "https://m.example.com/item/*",
                "features": {"offlinePackage": "item", "prefetch": \(prefetch)}},
               {"id": "default", "match": "*", "features": {}}]}
            """.utf8)
    }

    @Test func aRuleDeclaresItsPrefetchesAndADecisionBindsThemToTheRulesPages() throws {
        let config = try RemoteConfig.decode(Self.document("""
            [{"key": "item", "url": "https://api.example.com/item?id={query.id}", "headers": {"Accept": "application/json"}},
             {"key": "me", "url": "https://api.example.com/me", "withCookies": false, "maxAge": 2.5,
              "pages": "https://m.example.com/item/detail/*"}]
            """))
        let decision = config.features(for: URL(string: "https://m.example.com/item/?id=7")!, installID: "i")
        let item = try #require(decision.features.prefetch.first)
        #expect(item == PrefetchDeclaration(key: "item", url: "https://api.example.com/item?id={query.id}",
                                            headers: ["Accept": "application/json"], withCookies: true, maxAge: 10,
                                            pages: try ConfigURLPattern("https://m.example.com/item/*")))
        #expect(decision.features.prefetch.last?.pages?.text == "https://m.example.com/item/detail/*", "its own pages are kept")
        #expect(decision.features.prefetch.last?.withCookies == false)
        #expect(decision.features.summary.contains("prefetch 'item', 'me'"))
        // The default rule prefetches nothing.
        #expect(config.features(for: URL(string: "https://other.example.org/")!, installID: "i").features.prefetch.isEmpty)
        // The signed bytes carry the declarations; a document without any carries no key for them.
        #expect(try RemoteConfig.decode(try config.encoded()) == config)
        let plain = try RemoteConfig.decode(Self.document("[]"))
        #expect(!String(decoding: try plain.encoded(), as: UTF8.self).contains("prefetch"))
    }

    @Test(arguments: [
        // The query may never choose the host (and with it where the app's cookies go).
        #"{"key": "k", "url": "https://{query.host}/item"}"#,
        #"{"key": "k", "url": "https://api.example.com{query.suffix}/item"}"#,
        #"{"key": "k", "url": "https://api.example.com:{query.port}/item"}"#,
        #"{"key": "k", "url": "{query.scheme}://api.example.com/item"}"#,
        // Only http(s) with a host, no user info, only {query.NAME} placeholders.
        #"{"key": "k", "url": "file:///etc/passwd"}"#,
        #"{"key": "k", "url": "javascript:alert(1)"}"#,
        #"{"key": "k", "url": "https://user:secret@api.example.com/item"}"#,
        #"{"key": "k", "url": "https://api.example.com/item?id={id}"}"#,
        #"{"key": "k", "url": "https://api.example.com/item?id={query.}"}"#,
        #"{"key": "k", "url": "https://api.example.com/item?id={query.id"}"#,
        // A prefetch is a GET; cookies come from the app's jar, never from config.
        #"{"key": "k", "url": "https://api.example.com/item", "method": "POST"}"#,
        #"{"key": "k", "url": "https://api.example.com/item", "headers": {"Cookie": "session=stolen"}}"#,
        #"{"key": "k", "url": "https://api.example.com/item", "headers": {"host": "evil.example.net"}}"#,
        #"{"key": "k", "url": "https://api.example.com/item", "headers": {"X-A": "b\r\nCookie: x=1"}}"#,
        #"{"key": "k", "url": "https://api.example.com/item", "headers": {"X A": "b"}}"#,
        #"{"key": "k", "url": "https://api.example.com/item", "maxAge": 0}"#,
        #"{"key": "k", "url": "https://api.example.com/item", "maxAge": 301}"#,
        #"{"key": "../k", "url": "https://api.example.com/item"}"#,
        #"{"key": "k", "url": "https://api.example.com/a"}, {"key": "k", "url": "https://api.example.com/b"}"#,
    ])
    func aBadDeclarationRefusesTheWholeDocument(_ declaration: String) {
        #expect {
            try RemoteConfig.decode(Self.document("[\(declaration)]"))
        } throws: { error in
            (error as? HybridError)?.code == "invalid_prefetch" && "\(error)".contains("rule 'item' prefetch")
        }
    }

    @Test func aPagesQueryCannotMoveTheRequestToAnotherHost() throws {
        let declaration = PrefetchDeclaration(key: "item", url: "https://api.example.com/item?id={query.id}")
        try declaration.validate(rule: "item")
        #expect(try declaration.target(rule: "item") == BridgeOrigin(scheme: "https", host: "api.example.com"))
        let rule = try declaration.prefetchRule(pages: try ConfigURLPattern("*"), allowedTargets: ["https://api.example.com"], rule: "item")
        for hostile in ["@evil.example.net/", "x#@evil.example.net", "1&next=https://evil.example.net/", "../../evil"] {
            let page = URL(string: "https://m.example.com/item/?id=" + hostile.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)!
            #expect(rule.requestURL(for: page)?.host == "api.example.com", "\(hostile)")
        }
        // A target the app does not let config prefetch from is refused, with its own code.
        #expect {
            try declaration.prefetchRule(pages: try ConfigURLPattern("*"), allowedTargets: ["https://api.example.org"], rule: "item")
        } throws: { ($0 as? HybridError)?.code == "prefetch_target_not_allowed" }
    }
}
