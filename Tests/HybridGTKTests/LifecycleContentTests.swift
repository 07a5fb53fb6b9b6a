import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

@Suite("Lifecycle: local pages, injection, snapshots, media, preload", .serialized)
@MainActor
struct LifecycleContentTests {
    @Test(arguments: EngineKind.allCases)
    func localPagesLoadThroughTheCustomSchemeWithRelativeResources(_ kind: EngineKind) async throws {
        // A custom scheme where the engine navigates to one (WebKit); else the same handler at an
        // https origin, which an engine that intercepts HTTP serves (Blink).
        let custom = kind.capabilities.contains(.customSchemeNavigation)
        let scheme = custom ? "local" : "https", origin = custom ? "local://app" : "https://app.local.invalid"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-local-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("css"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("js"), withIntermediateDirectories: true)
        try Data("""
            <!doctype html><title>Local</title><link rel=stylesheet href="css/app.css">
            <p id=p>local</p><script src="js/app.js"></script>
            """.utf8).write(to: directory.appendingPathComponent("index.html"))
        try Data("#p { color: rgb(1, 2, 3); }".utf8).write(to: directory.appendingPathComponent("css/app.css"))
        try Data("window.fromScript = 'ran';".utf8).write(to: directory.appendingPathComponent("js/app.js"))
        try Data("{\"answer\": 42}".utf8).write(to: directory.appendingPathComponent("data.json"))

        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        var configuration = HybridWebViewConfiguration()
        configuration.serveLocalDirectory(directory, scheme: scheme)
        let view = try rig.view(configuration)
        try await view.loadAndWait(URL(string: "\(origin)/index.html")!)
        try await eventually("the title") { view.state.title == "Local" }
        #expect(try await view.engine.evaluate("getComputedStyle(p).color") == "rgb(1, 2, 3)")
        #expect(try await view.engine.evaluate("window.fromScript") == "ran")
        #expect(try await view.page("return (await (await fetch('data.json')).json()).answer;") == 42)
        #expect(try await view.engine.evaluate("location.origin") == .string(origin))
        #expect(try await view.page("return (await fetch('../../../etc/passwd')).status;") == 404)
    }

    @Test(arguments: EngineKind.allCases)
    func injectionsAddStylesScriptsAndFragmentsByURLPattern(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/article/1", "<title>Story</title><article><p>story</p></article><p>after</p>")
        rig.page("/other", "<title>Other</title><article><p>other</p></article>")
        var configuration = HybridWebViewConfiguration()
        configuration.injections = [
            PageInjection(.html("<footer id=share><button>Like</button><button>Share</button></footer>",
                                selector: "article", position: .afterEnd), urlPatterns: ["http://127.0.0.1/article/*"]),
            PageInjection(.css("body { margin: 7px; }")),
            PageInjection(.script("window.injectedAtStart = document.readyState;"), at: .documentStart,
                          urlPatterns: ["http://127.0.0.1/article/*"]),
        ]
        let view = try rig.view(configuration)
        try await view.loadAndWait(rig.url("/article/1"))
        #expect(try await view.engine.evaluate("document.querySelector('article').nextElementSibling.id") == "share")
        #expect(try await view.engine.evaluate("document.querySelectorAll('#share button').length") == 2)
        #expect(try await view.engine.evaluate("getComputedStyle(document.body).marginTop") == "7px")
        #expect(try await view.engine.evaluate("window.injectedAtStart") == "loading")
        try await view.loadAndWait(rig.url("/other"))
        #expect(try await view.engine.evaluate("document.getElementById('share')") == .null)
        #expect(try await view.engine.evaluate("typeof window.injectedAtStart") == "undefined")
        #expect(try await view.engine.evaluate("getComputedStyle(document.body).marginTop") == "7px")
    }

    @Test(arguments: EngineKind.allCases)
    func injectionsReachTheMainFrameOrEveryFrameAsAsked(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/framed", "<title>Framed</title><iframe id=f src='/inner'></iframe>")
        rig.page("/inner", "<p>inner</p>")
        var configuration = HybridWebViewConfiguration()
        configuration.injections = [
            PageInjection(.script("window.everyFrame = location.pathname;"), at: .documentStart, frames: .allFrames),
            PageInjection(.script("window.mainOnly = location.pathname;"), at: .documentStart),
            PageInjection(.css("p { margin-left: 11px; }"), frames: .allFrames),
            PageInjection(.css("body { margin-right: 13px; }")),
        ]
        let view = try rig.view(configuration)
        try await view.loadAndWait(rig.url("/framed"))
        try await view.engine.waitUntil("f.contentDocument && f.contentDocument.readyState === 'complete'")
        #expect(try await view.engine.evaluate("[window.everyFrame, window.mainOnly].join()") == "/framed,/framed")
        #expect(try await view.engine.evaluate("f.contentWindow.everyFrame") == "/inner")
        #expect(try await view.engine.evaluate("typeof f.contentWindow.mainOnly") == "undefined")
        let inner = "f.contentWindow.getComputedStyle(f.contentDocument."
        #expect(try await view.engine.evaluate(inner + "querySelector('p')).marginLeft") == "11px")
        #expect(try await view.engine.evaluate(inner + "body).marginRight") != "13px")
        #expect(try await view.engine.evaluate("getComputedStyle(document.body).marginRight") == "13px")
    }

    @Test(arguments: EngineKind.allCases)
    func snapshotsUseThePageCaptureFunctionWhenOneIsRegistered(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/canvas", """
            <title>Canvas</title><body style="margin:0"><canvas id=c width=64 height=32></canvas><script>
            const g = c.getContext('2d'); g.fillStyle = 'rgb(0, 200, 0)'; g.fillRect(0, 0, 64, 32);</script></body>
            """)
        var configuration = HybridWebViewConfiguration()
        configuration.engine.viewportSize = ViewportSize(width: 320, height: 240)
        let view = try rig.view(configuration)
        try await view.loadAndWait(rig.url("/canvas"))
        // The engine's own snapshot, once the first frame with the canvas is composited.
        var engineShot = Data()
        try await eventually("a snapshot showing the green canvas") {
            if let shot = try? await view.snapshot() { engineShot = shot }
            guard let image = try? TestPNG.decode(engineShot) else { return false }
            return image.pixel(4, 4, is: (0, 200, 0)) && image.pixel(image.width - 4, image.height - 4, is: (255, 255, 255))
        }
        #expect(engineShot.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(try PNGInfo(engineShot).width >= 300)

        _ = try await view.engine.evaluate("hybrid.onSnapshot(() => c.toDataURL('image/png')); 0")
        let pageShot = try await view.snapshot()
        let expected = try #require(try await view.engine.evaluate("c.toDataURL('image/png')").stringValue)
        #expect(pageShot == Data(base64Encoded: String(expected.dropFirst("data:image/png;base64,".count))))
        #expect(try PNGInfo(pageShot).width == 64 && PNGInfo(pageShot).height == 32)

        // A capture that fails or returns something else falls back to the engine.
        _ = try await view.engine.evaluate("hybrid.onSnapshot(() => { throw new Error('no'); }); 0")
        #expect(try PNGInfo(try await view.snapshot()).width >= 300)
    }

    @Test(arguments: EngineKind.allCases)
    func autoplayIsDecidedBeforeCreationAndPauseStopsMedia(_ kind: EngineKind) async throws {
        try kind.require(.perViewMediaPolicy)
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        // The page starts playback itself (a script the container evaluates would count as a gesture).
        rig.page("/media", """
            <title>Media</title><audio id=a src='/tone.wav' loop></audio><video id=v></video><script>
            a.play().then(() => { window.result = 'playing'; }, (e) => { window.result = e.name; });</script>
            """)

        let gestureRequired = try rig.view()
        try await gestureRequired.loadAndWait(rig.url("/media"))
        try await gestureRequired.engine.waitUntil("window.result !== undefined")
        #expect(try await gestureRequired.engine.evaluate("window.result") == "NotAllowedError")

        var configuration = HybridWebViewConfiguration()
        configuration.engine.media = MediaPolicy(autoplayWithoutGesture: true, inlinePlayback: true)
        let autoplay = try rig.view(configuration)
        try await autoplay.loadAndWait(rig.url("/media"))
        try await autoplay.engine.waitUntil("window.result !== undefined")
        #expect(try await autoplay.engine.evaluate("window.result") == "playing")
        #expect(await autoplay.pauseMedia() == 1)
        #expect(try await autoplay.engine.evaluate("a.paused && !a.hasAttribute('autoplay')") == true)
        #expect(await autoplay.pauseMedia() == 0)
    }

    @Test(arguments: EngineKind.allCases)
    func preloadShowsTheFetchedHTMLAsTheRealURL(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        let hits = rig.hits
        rig.server.route("/pre") { request in
            hits.mutate { $0[request.path, default: 0] += 1 }
            return ServerResponse.html("<title>Pre</title><p>pre</p><script src='/pre-script.js'></script>").delayed(by: .milliseconds(40))
        }
        rig.server.route("/pre-script.js") { _ in
            ServerResponse(headers: ["Content-Type": "text/javascript"], body: Data("window.relative = location.pathname;".utf8))
        }
        rig.server.route("/nostore") { request in
            hits.mutate { $0[request.path, default: 0] += 1 }
            return ServerResponse.html("<title>No store</title>").adding(header: "Cache-Control", "no-store")
        }
        let preloader = PagePreloader()
        let url = rig.url("/pre/page")
        let page = preloader.start(url)
        let view = try rig.view()
        let recorder = EventRecorder(view.engine)
        await view.load(url, preloaded: page)
        try await recorder.next("the page") { if case .loadFinished(let u) = $0 { u == url } else { false } }
        #expect(view.state.url == url)
        try await eventually("the title") { view.state.title == "Pre" }
        #expect(try await view.engine.evaluate("history.length") == 1)
        try await view.engine.waitUntil("window.relative === '/pre/page'")
        #expect(try await view.engine.evaluate("location.href") == .string(url.absoluteString))
        #expect(rig.hitCount("/pre/page") == 1)

        // Not cacheable: the engine loads it itself.
        let other = try rig.view()
        let nostore = rig.url("/nostore/page")
        let otherRecorder = EventRecorder(other.engine)
        await other.load(nostore, preloaded: preloader.start(nostore))
        try await otherRecorder.next("the page") { if case .loadFinished(let u) = $0 { u == nostore } else { false } }
        #expect(rig.hitCount("/nostore/page") == 2)
        try await eventually("the title") { other.state.title == "No store" }
    }
}
