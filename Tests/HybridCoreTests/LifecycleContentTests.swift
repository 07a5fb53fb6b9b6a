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
import Testing

@Suite("Lifecycle: injections and preload rules")
struct LifecycleContentUnitTests {
    @Test func injectionsBecomeUserContentScopedByPattern() {
        var configuration = EngineConfiguration()
        PageInjection(.css("a{}"), urlPatterns: ["https://m.example.com/*"]).apply(to: &configuration)
        PageInjection(.script("1"), at: .documentStart, frames: .allFrames).apply(to: &configuration)
        PageInjection(.html("<b>'\"</b>", selector: "article > p", position: .afterEnd),
                      urlPatterns: ["https://m.example.com/news/*"], excludedPatterns: ["https://m.example.com/news/private/*"])
            .apply(to: &configuration)
        #expect(configuration.userStyleSheets.map(\.allowList) == [["https://m.example.com/*"]])
        #expect(configuration.userScripts.count == 2)
        #expect(configuration.userScripts[0].injectionTime == .documentStart && configuration.userScripts[0].frames == .allFrames)
        let fragment = configuration.userScripts[1]
        #expect(fragment.injectionTime == .documentEnd && fragment.world == .page)
        #expect(fragment.blockList == ["https://m.example.com/news/private/*"])
        // The fragment and selector travel as JSON strings: quotes cannot break out of the script.
        #expect(fragment.source.contains(#""<b>'\"<\/b>""#) || fragment.source.contains(#""<b>'\"</b>""#))
        #expect(fragment.source.contains(#"'afterend'"#))
    }

    func response(_ status: Int, _ headers: [String: String]) -> HTTPURLResponse {
        HTTPURLResponse(url: URL(string: "https://m.example.com/page")!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    @Test func onlyCacheableHTML200sArePreloaded() {
        let html = Data("<p>x</p>".utf8)
        let page = PagePreloader.page(from: response(200, ["Content-Type": "text/html; charset=ISO-8859-1"]), data: html, maximumBytes: 100)
        #expect(page?.mimeType == "text/html" && page?.encoding == "ISO-8859-1" && page?.url.path == "/page")
        #expect(PagePreloader.page(from: response(200, ["Content-Type": "text/html"]), data: html, maximumBytes: 100)?.encoding == "utf-8")
        #expect(PagePreloader.page(from: response(404, ["Content-Type": "text/html"]), data: html, maximumBytes: 100) == nil)
        #expect(PagePreloader.page(from: response(200, ["Content-Type": "application/json"]), data: html, maximumBytes: 100) == nil)
        #expect(PagePreloader.page(from: response(200, ["Content-Type": "text/html", "Cache-Control": "private, no-store"]), data: html, maximumBytes: 100) == nil)
        #expect(PagePreloader.page(from: response(200, ["Content-Type": "text/html", "Set-Cookie": "a=1"]), data: html, maximumBytes: 100) == nil)
        #expect(PagePreloader.page(from: response(200, ["Content-Type": "text/html"]), data: html, maximumBytes: 4) == nil)
    }

    @Test func pageSnapshotsAreAcceptedOnlyAsPNGDataURLs() async {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])
        #expect(await HybridWebView.pngData(fromDataURL: "data:image/png;base64," + png.base64EncodedString()) == png)
        #expect(await HybridWebView.pngData(fromDataURL: "data:image/jpeg;base64," + png.base64EncodedString()) == nil)
        #expect(await HybridWebView.pngData(fromDataURL: "data:image/png;base64," + Data("GIF89a".utf8).base64EncodedString()) == nil)
        #expect(await HybridWebView.pngData(fromDataURL: "data:image/png;base64,@@@") == nil)
    }
}
