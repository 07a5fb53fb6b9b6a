import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import Testing

@Suite("Config URL patterns")
struct ConfigURLPatternTests {
    @Test(arguments: [
        ("*", "https://anything.example/x?y", true),
        ("*", "hybrid-app://app/index.html", true),
        ("https://m.example.com/app/*", "https://m.example.com/app/index.html", true),
        ("https://m.example.com/app/*", "https://m.example.com/app/", true),
        ("https://m.example.com/app/*", "https://M.EXAMPLE.com./app/a/b?c=1#d", true),
        ("https://m.example.com/app/*", "https://m.example.com/apple", false),
        ("https://m.example.com/app/*", "http://m.example.com/app/x", false),
        ("https://m.example.com/app/*", "https://evil.com/m.example.com/app/x", false),
        ("https://m.example.com/app/*", "https://m.example.com.evil.com/app/x", false),
        ("https://m.example.com/app/*", "https://evil.com/?u=https://m.example.com/app/", false),
        ("*://m.example.com/*", "http://m.example.com/", true),
        ("https://*.example.com/shop/*", "https://example.com/shop/1", true),
        ("https://*.example.com/shop/*", "https://a.b.example.com/shop/1", true),
        ("https://*.example.com/shop/*", "https://notexample.com/shop/1", false),
        ("https://*.example.com/shop/*", "https://example.com.cn/shop/1", false),
        ("https://m.example.com", "https://m.example.com/any/path", true),
        ("https://m.example.com:8443/*", "https://m.example.com:8443/x", true),
        ("https://m.example.com:8443/*", "https://m.example.com/x", false),
        ("https://m.example.com:443/*", "https://m.example.com/x", true),
        ("https://m.example.com/*.html", "https://m.example.com/a/b.html", true),
        ("https://m.example.com/*.html", "https://m.example.com/a/b.html.js", false),
        ("https://m.example.com/a*b*c", "https://m.example.com/aXXbYYc", true),
        ("https://m.example.com/a*b*c", "https://m.example.com/aXXbYY", false),
        ("https://m.example.com/%E4%B8%AD/*", "https://m.example.com/%E4%B8%AD/x", true),
    ])
    func matches(pattern: String, url: String, expected: Bool) throws {
        let compiled = try ConfigURLPattern(pattern)
        #expect(compiled.matches(URL(string: url)!) == expected, "\(pattern) vs \(url)")
    }

    @Test(arguments: ["", "m.example.com/app", "https://", "https://*foo.com/", "https://a.*.com/", "https://x.com/a?b",
                      "https://x.com/#f", "https://x.com:99999/", "ht tp://x.com/", "https://x .com/"])
    func rejectsMalformedPatterns(pattern: String) {
        #expect { try ConfigURLPattern(pattern) } throws: { ($0 as? HybridError)?.code == "invalid_pattern" }
    }

    @Test func hostileGlobsStayFast() throws {
        let path = "/" + String(repeating: "*a", count: 200) + "b", text = "/" + String(repeating: "a", count: 5_000)
        let pattern = try ConfigURLPattern("https://x.com" + path)
        let url = URL(string: "https://x.com" + text)!
        #expect(!pattern.matches(url))
        // Fast by construction, counted rather than timed: a backtracking matcher would take
        // about text^stars steps here, this one stays within pattern × text.
        var steps = 0
        #expect(!ConfigURLPattern.glob(path, matches: text, steps: &steps))
        #expect(steps > 0 && steps <= (path.utf8.count + 1) * (text.utf8.count + 1))
    }
}
