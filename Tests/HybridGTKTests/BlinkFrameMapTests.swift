import Foundation
import HybridBlink
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// Blink's driver keeps each iframe's id and origin (downloads and pickers name the frame that
/// asked). A page that adds and removes iframes all day must not grow that state: a frame that
/// leaves (`Page.frameDetached`) is forgotten, whether it ran in the page's process or, cross-site,
/// in a process of its own.
@Suite("Blink: frame state is pruned", .serialized)
@MainActor
struct BlinkFrameMapTests {
    /// Adds `count` iframes of `src` and waits until each has loaded.
    static let addFrames = """
        const frames = await Promise.all(Array.from({ length: count }, (_, i) => new Promise(resolve => {
          const frame = document.createElement('iframe');
          frame.className = 'churn';
          frame.onload = () => resolve(frame);
          frame.src = src + '?n=' + i;
          document.body.appendChild(frame);
        })));
        return frames.length;
        """

    @Test func iframesThatLeaveAreForgotten() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/host.html") { _ in .html("<title>host</title><p>host</p>") }
        server.route("/frame.html") { _ in .html("<p>frame</p>") }
        let engine = try EngineKind.blink.makeEngine()
        defer { engine.close() }
        let driver = try #require((engine as? BlinkWebEngine)?.driver)
        try await engine.loadAndWait(server.url("/host.html"))
        #expect(driver.trackedFrameCount == 0)

        let sameOrigin = server.url("/frame.html").absoluteString
        let crossSite = server.url("/frame.html", host: "localhost").absoluteString
        var peaks: [Int] = []
        for round in 0..<4 {
            for src in [sameOrigin, crossSite] {
                let added = try await engine.callAsync(Self.addFrames, arguments: ["src": .string(src), "count": 5])
                #expect(added == 5)
            }
            try await eventually("round \(round): the ten iframes are tracked") { driver.trackedFrameCount >= 10 }
            peaks.append(driver.trackedFrameCount)
            _ = try await engine.evaluate("document.querySelectorAll('iframe.churn').forEach(f => f.remove()); 0")
            try await eventually("round \(round): the removed iframes are forgotten") { driver.trackedFrameCount == 0 }
        }
        // Every round tracks its own frames, no more: nothing of earlier rounds is left.
        #expect(Set(peaks).count == 1, "peaks \(peaks)")
    }
}
