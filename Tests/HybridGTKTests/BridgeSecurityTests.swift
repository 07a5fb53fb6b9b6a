import Foundation
import HybridCore
import HybridFixtures
import Testing

@Suite("Bridge refuses foreign frames, foreign origins and stale documents", .serialized)
@MainActor
struct BridgeSecurityTests {
    static let frame = """
        <!doctype html><script>
        const report = { hybrid: typeof window.hybrid,
          handler: typeof (window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.hybrid) };
        try { parent.document.dispatchEvent(new CustomEvent('hybridkit:send', { detail: '{}' })); report.parentDocument = 'reachable'; }
        catch (e) { report.parentDocument = e.name; }
        try { parent.dispatchEvent(new CustomEvent('hybridkit:send', { detail: '{}' })); report.parentWindow = 'reachable'; }
        catch (e) { report.parentWindow = e.name; }
        try { report.parentHybrid = typeof parent.hybrid.call; } catch (e) { report.parentHybrid = e.name; }
        parent.postMessage(JSON.stringify(report), '*');
        </script>
        """
    static let pages = [
        "index.html": "<!doctype html><title>app</title>",
        "next.html": "<!doctype html><title>next</title>",
        "host.html": """
            <!doctype html><script>window.addEventListener('message', (e) => { window.frameReport = e.data; });</script>
            <iframe src="hybrid-test://other/frame.html"></iframe>
            """,
        "frame.html": frame,
    ]

    @Test(arguments: EngineKind.allCases)
    func aForeignOriginIframeGetsNoBridgeAtAll(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("host.html")
        try await rig.engine.waitUntil("window.frameReport")
        let report = try JSONValue(jsonText: try #require(try await rig.page("return window.frameReport;").stringValue))
        #expect(report["hybrid"] == "undefined")
        #expect(report["handler"] == "undefined")
        #expect(report["parentDocument"] == "SecurityError")
        #expect(report["parentWindow"] == "SecurityError")
        #expect(report["parentHybrid"] == "SecurityError")
        #expect(rig.completions.isEmpty)
        // The main frame's bridge still works.
        #expect(try await rig.page("return await hybrid.call('probe', 'add', { a: 1, b: 1 });") == 2)
    }

    @Test(arguments: EngineKind.allCases)
    func anOriginNotOnTheAllowlistIsDeniedAndLogged(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html", host: "evil")
        let result = try await rig.page("""
            await hybrid.ready;
            return { modules: hybrid.modules, call: await attempt(hybrid.call('probe', 'add', { a: 1, b: 1 })) };
            """)
        // Not even the `hybrid` module: an origin the app gave nothing learns nothing.
        #expect(result["modules"] == [])
        #expect(result["call"]?["code"] == "denied")
        let denied = rig.log.filter { $0.code == "denied" }
        #expect(denied.count == 1)
        #expect(denied.first?.origin == BridgeOrigin(url: kind.url("", host: "evil")))
        #expect(denied.first?.module == "probe")
    }

    @Test(arguments: EngineKind.allCases)
    func anImmediateActionIsDeniedToAnOriginNotOnTheAllowlist(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html", host: "evil")
        let result = try await rig.page("return await attempt(hybrid.call('probe', 'addNow', { a: 1, b: 1 }));")
        #expect(result["code"] == "denied")
        #expect(rig.log.filter { $0.code == "denied" }.map(\.module) == ["probe"])
        #expect(rig.completions.isEmpty)
    }

    @Test(arguments: EngineKind.allCases)
    func aStaleDocumentCannotCallAndItsRepliesAreDropped(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        _ = try await rig.page("hybrid.call('probe', 'wait').catch(() => {}); return null;")
        try await rig.until("the call to be pending") { rig.host.router.pendingCount == 1 }
        let oldNonce = try #require(rig.host.router.document?.nonce)
        try await rig.open("next.html")
        try await rig.until("the old call to end") { rig.completions.count == 1 }
        #expect(rig.completions.first?.delivered == false)
        #expect(rig.log.contains { $0.code == "dropped" })
        // A message carrying the old document's nonce, posted straight to the handler.
        let forged = #"{"v":1,"id":5,"module":"probe","action":"add","params":{"a":1,"b":1},"nonce":"\#(oldNonce)"}"#
        let reply = try await rig.engine.callAsync(
            "return await window.webkit.messageHandlers.hybrid.postMessage(text);", arguments: ["text": .string(forged)],
            in: .named("hybridkit"))
        let answer = try JSONValue(jsonText: try #require(reply.stringValue))
        #expect(answer["error"]?["code"] == "denied")
        #expect(rig.host.router.document?.nonce != oldNonce)
        #expect(try await rig.page("return await hybrid.call('probe', 'add', { a: 2, b: 2 });") == 4)
    }

    @Test(arguments: EngineKind.allCases)
    func aForeignFrameNavigatingTheTopToABridgeURLIsNotACall(_ kind: EngineKind) async throws {
        let pages = Self.pages.merging([
            "top.html": """
                <!doctype html><script>window.frameLog = []; addEventListener('message', (e) => frameLog.push(String(e.data)));</script>
                <iframe src='hybrid-test://other/nav.html'></iframe>
                """,
            "nav.html": """
                <script>parent.postMessage('loaded ' + location.origin, '*');
                let outcome = 'no exception';
                try { top.location.href = 'hybrid://probe/add?params=' + encodeURIComponent('{"a":1,"b":2}'); }
                catch (e) { outcome = e.name; }
                parent.postMessage('tried: ' + outcome, '*');</script>
                """,
        ]) { $1 }
        let rig = try BridgeRig(kind, pages: pages)
        defer { rig.close() }
        try await rig.open("top.html", ready: false)
        // The foreign frame loaded and made its attempt.
        try await rig.engine.waitUntil("frameLog.some((m) => m.startsWith('tried: '))")
        let frameLog = try await rig.engine.evaluate("frameLog").arrayValue?.compactMap(\.stringValue) ?? []
        #expect(frameLog.first == "loaded \(kind.origin("other"))")
        // The barrier: a call of the top document's own, sent after the attempt, has completed.
        try await rig.engine.waitUntil("window.hybrid !== undefined")
        #expect(try await rig.page("await hybrid.ready; return await hybrid.call('probe', 'add', { a: 20, b: 22 });") == 42)
        // WebKit refuses a cross-origin frame's top navigation without a user gesture; were it
        // allowed, the call would carry the main frame's origin, so nothing must have run.
        #expect(rig.completions.count == 1, "\(frameLog)")
        #expect(rig.completions.allSatisfy { $0.code == nil })
    }
}
