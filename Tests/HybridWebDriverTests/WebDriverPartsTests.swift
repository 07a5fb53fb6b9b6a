import Foundation
import HybridCore
@testable import HybridWebDriver
import Testing

/// The pure parts: routes, cookies as the standard shapes them, the element screenshot's PNG crop.
@Suite("WebDriver routes, cookies, PNG")
struct WebDriverPartsTests {
    @Test func routesEveryCommandItImplements() throws {
        let route = { (method: String, path: String) in
            WebDriverCommand.route(method: method, segments: path.split(separator: "/").map(String.init))
        }
        #expect(try route("POST", "session").get().0 == .newSession)
        #expect(try route("GET", "session/s1/element/e1/attribute/href").get() == (.elementAttribute("e1", "href"), "s1"))
        #expect(try route("POST", "session/s1/execute/async").get().0 == .executeAsync)
        #expect(try route("DELETE", "session/s1/cookie/wd").get().0 == .deleteCookie("wd"))
        #expect(try route("GET", "session/s1/element/e1/screenshot").get().0 == .elementScreenshot("e1"))
        #expect(try route("GET", "session/s1/element/e1/shadow").get().0 == .unsupported("get element shadow root"))
        #expect(throws: WebDriverError.self) { try route("GET", "session/s1/element/e1/bogus").get() }
        #expect(throws: WebDriverError.self) { try route("PUT", "session/s1/url").get() }
    }

    @Test func cookiesAreTheCurrentSitesOnly() throws {
        let plain = try WebDriverSession.cookie(["name": "wd", "value": "42"], host: "shop.example.com", secureScheme: true)
        #expect(plain.domain == "shop.example.com" && plain.hostOnly && plain.path == "/")
        let shared = try WebDriverSession.cookie(["name": "a", "value": "b", "domain": ".example.com", "expiry": 2_000_000_000,
                                                  "sameSite": "Strict", "httpOnly": true], host: "shop.example.com", secureScheme: true)
        #expect(!shared.hostOnly && shared.domain == "example.com" && shared.httpOnly && shared.sameSite == .strict)
        #expect(WebDriverSession.json(shared)["domain"] == ".example.com" && WebDriverSession.json(shared)["expiry"] == 2_000_000_000)
        #expect(throws: WebDriverError(.invalidCookieDomain, "evil.example is not the current page's domain (shop.example.com)")) {
            try WebDriverSession.cookie(["name": "a", "value": "b", "domain": "evil.example"], host: "shop.example.com", secureScheme: true)
        }
        for bad: JSONValue in [["name": "a"], ["name": "a", "value": "b", "expiry": -1], ["name": "a", "value": "b", "sameSite": "lax"],
                               ["name": "a", "value": "b", "path": "x"], ["name": "a", "value": "b", "secure": "yes"]] {
            #expect(throws: WebDriverError.self) { try WebDriverSession.cookie(bad, host: "shop.example.com", secureScheme: true) }
        }
    }

    @Test func cutsAnElementOutOfAScreenshot() throws {
        // A 6x4 RGBA image whose pixel (x, y) is (x, y, x*y, 255), written and read back.
        var image = try PNGImage(Self.png(width: 6, height: 4))
        #expect(image.width == 6 && image.height == 4 && image.channels == 4)
        image = try PNGImage(image.cropped(to: .init(x: 2, y: 1, width: 3, height: 2)).encoded())
        #expect(image.width == 3 && image.height == 2)
        #expect(Array(image.pixels.prefix(4)) == [2, 1, 2, 255] && Array(image.pixels.suffix(4)) == [4, 2, 8, 255])
        #expect(try PNGImage(Self.png(width: 6, height: 4)).cropped(to: .init(x: 5, y: 3, width: 10, height: 10)).width == 1)
        #expect(throws: PNGImage.Failure.self) { try PNGImage(Self.png(width: 6, height: 4)).cropped(to: .init(x: 7, y: 0, width: 2, height: 2)) }
        #expect(throws: PNGImage.Failure.self) { try PNGImage(Data("not a png".utf8)) }
        var truncated = Self.png(width: 6, height: 4)
        truncated.removeLast(20)
        #expect(throws: (any Error).self) { try PNGImage(truncated) }
    }

    /// A PNG written through `PNGImage.encoded()` of a cropped copy of itself (the whole image).
    static func png(width: Int, height: Int) -> Data {
        var pixels: [UInt8] = []
        for y in 0..<height { for x in 0..<width { pixels += [UInt8(x), UInt8(y), UInt8(x * y), 255] } }
        return (try? PNGImage(width: width, height: height, channels: 4, pixels: pixels).encoded()) ?? Data()
    }
}
