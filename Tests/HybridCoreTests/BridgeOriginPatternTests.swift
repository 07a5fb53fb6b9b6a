import Foundation
import Testing
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages

@Suite("Origin patterns match exact, normalised origins and deny by default")
struct BridgeOriginPatternTests {
    func origin(_ text: String) -> BridgeOrigin? { BridgeOrigin(url: URL(string: text)!) }

    @Test(arguments: [
        ("https://app.example.com", "https://app.example.com/"),
        ("https://app.example.com", "https://APP.Example.COM/path?q#f"),
        ("https://app.example.com", "https://app.example.com:443/x"),
        ("https://app.example.com:443", "https://app.example.com/"),
        ("http://localhost:8080", "http://localhost:8080/index.html"),
        ("HTTPS://App.Example.com/", "https://app.example.com"),
        ("hybrid-app://pkg.demo", "hybrid-app://pkg.demo/index.html"),
        ("https://app.example.com", "blob:https://app.example.com/1234-abcd"),
        ("file://", "file:///tmp/page.html"),
    ])
    func sameOriginsMatch(_ pattern: String, _ url: String) {
        #expect(OriginPattern(pattern).matches(origin(url)), "\(pattern) vs \(url)")
    }

    @Test(arguments: [
        ("https://app.example.com", "http://app.example.com/"),
        ("https://app.example.com", "https://app.example.com:8443/"),
        ("https://app.example.com", "https://a.app.example.com/"),
        ("https://app.example.com", "https://app.example.com.evil.net/"),
        ("https://app.example.com", "https://evil.net/?https://app.example.com"),
        ("https://app.example.com", "https://app.example.co/"),
        ("http://localhost:8080", "http://localhost/"),
        ("https://app.example.com", "about:blank"),
        ("https://app.example.com", "data:text/html,hi"),
        ("https://app.example.com", "https://app.example.com../"),
    ])
    func otherOriginsDoNot(_ pattern: String, _ url: String) {
        #expect(!OriginPattern(pattern).matches(origin(url)), "\(pattern) vs \(url)")
    }

    /// One trailing dot is the same host; a host with an empty label is no origin at all, so an
    /// origin is always what its own parts rebuild (the url-pattern fuzz target's property).
    @Test func trailingDotsNormaliseOnceAndEmptyLabelsAreNoOrigin() throws {
        #expect(origin("https://app.example.com./") == origin("https://app.example.com/"))
        #expect(origin("https://app.example.com../") == nil)
        #expect(origin("p://../") == nil)
        let dotted = try #require(origin("https://app.example.com./"))
        #expect(BridgeOrigin(scheme: dotted.scheme, host: dotted.host, port: dotted.port) == dotted)
    }

    @Test(arguments: ["https://app.example.com/path", "https://*.example.com", "https://user@app.example.com",
                      "app.example.com", "https://app.example.com?x", "", "https://", "*.example.com"])
    func patternsWithMoreThanAnOriginAreInvalidAndMatchNothing(_ text: String) {
        let pattern = OriginPattern(text)
        #expect(!pattern.isValid)
        #expect(!pattern.matches(origin("https://app.example.com/")))
        #expect(!pattern.matches(nil))
    }

    @Test func anyMatchesEverythingIncludingOpaqueOrigins() {
        #expect(OriginPattern("*") == .any)
        #expect(OriginPattern.any.matches(nil))
        #expect(OriginPattern.any.matches(origin("https://x.y/")))
    }

    @Test func anEmptyAllowlistAdmitsNobody() {
        let none: [OriginPattern] = []
        #expect(!none.admits(origin("https://app.example.com/")))
        #expect(!none.admits(nil))
    }

    @Test func originsPrintWithoutDefaultPorts() {
        #expect(origin("https://App.example.com:443/x")?.description == "https://app.example.com")
        #expect(origin("http://localhost:8080/")?.description == "http://localhost:8080")
        #expect(BridgeOrigin(scheme: "HTTP", host: "Example.COM.").description == "http://example.com")
    }
}
