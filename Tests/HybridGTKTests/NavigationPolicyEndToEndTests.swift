import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// Records what the navigation policy hands to the app.
@MainActor
final class NavigationRecorder: HybridWebViewDelegate {
    var externals: [ExternalNavigation] = []
    var blocked: [BlockedNavigation] = []
    var newWindows: [NewWindowRequest] = []
    func webView(_ webView: HybridWebView, openExternal navigation: ExternalNavigation) { externals.append(navigation) }
    func webView(_ webView: HybridWebView, didBlockNavigation navigation: BlockedNavigation) { blocked.append(navigation) }
    func webView(_ webView: HybridWebView, requestsNewWindow request: NewWindowRequest) { newWindows.append(request) }
}

/// A bridge module that records the calls URL interception routes to it.
struct ProbeModule: BridgeModule {
    let calls: Locked<[JSONValue]>
    let name = "probe"
    let allowedOrigins: [OriginPattern]
    var actions: [BridgeAction] {
        let calls = self.calls
        return [Action("hit") { (params: JSONValue, _) in calls.mutate { $0.append(params) }; return true }]
    }
}

/// Issue 4's navigation rules, each in the real engine against the loopback server.
@Suite("NavigationPolicy end to end", .serialized)
@MainActor
struct NavigationPolicyEndToEndTests {
    let server: LoopbackServer
    let recorder = NavigationRecorder()
    let calls = Locked<[JSONValue]>([])

    init() throws {
        server = try LoopbackServer()
        TestRoutes.install(on: server)
        server.route("/nav/page") { _ in
            .html("""
                <!doctype html><html><head><meta charset=utf-8><title>nav</title></head><body>
                <a id=call href="myapp://probe/hit?x=1&y=a%20b">call</a>
                <a id=tel href="tel:+8610086">tel</a><a id=mail href="mailto:a@example.com">mail</a>
                <a id=wx href="weixin://wap/pay?prepayid=1">wx</a><a id=ali href="alipays://platformapi/startapp?x=1">ali</a>
                <a id=store href="https://apps.apple.com/app/id1">store</a><a id=unknown href="evil-scheme://steal">unknown</a>
                <a id=blank target=_blank href="/echo?popup=1">blank</a>
                </body></html>
                """)
        }
    }

    func view(_ kind: EngineKind, _ policy: NavigationPolicy) throws -> HybridWebView {
        var configuration = HybridWebViewConfiguration()
        configuration.navigation = policy
        let port = server.url("/").port ?? 0
        configuration.modules = [ProbeModule(calls: calls, allowedOrigins: [OriginPattern("http://127.0.0.1:\(port)")])]
        let view = try HybridWebView(provider: try kind.provider(), configuration: configuration)
        view.delegate = recorder
        return view
    }

    /// The echo reply a main-frame document shows.
    func echo(_ view: HybridWebView) async throws -> JSONValue {
        try await view.page("return JSON.parse(document.body.innerText)")
    }

    func header(_ echo: JSONValue, _ name: String) -> [String] {
        echo["headers"]?.arrayValue?.compactMap { pair in
            pair.arrayValue?.first?.stringValue?.lowercased() == name.lowercased() ? pair.arrayValue?.last?.stringValue : nil
        } ?? []
    }

    @Test(arguments: EngineKind.allCases)
    func configuredSchemeLinksBecomeBridgeCalls(_ kind: EngineKind) async throws {
        let view = try view(kind, NavigationPolicy(interceptedSchemes: ["myapp"]))
        defer { view.close(); server.stop() }
        let page = server.url("/nav/page")
        try await view.loadAndWait(page)
        _ = try await view.page("document.getElementById('call').click(); return true")
        try await eventually("the probe call") { !calls.value.isEmpty }
        #expect(calls.value.first == ["x": "1", "y": "a b"])
        #expect(view.engine.url == page)
    }

    /// Token parameters and headers go to the configured host only, encoded, never twice.
    @Test(arguments: EngineKind.allCases)
    func tokensReachConfiguredHostsOnlyOnce(_ kind: EngineKind) async throws {
        let token = "a b&c=d+é#"
        var policy = NavigationPolicy()
        policy.parameterRules = [.init(hosts: ["localhost"], query: [("token", token)], headers: ["X-Token": "t1"], schemes: ["http"])]
        let view = try view(kind, policy)
        defer { view.close(); server.stop() }
        try await view.loadAndWait(server.url("/echo?x=1", host: "localhost"))
        var reply = try await echo(view)
        #expect(reply["query"] == "x=1&token=a%20b%26c%3Dd%2B%C3%A9%23")
        #expect(header(reply, "X-Token") == ["t1"])
        // A link on that page to the same host: added once, not again.
        let next = server.url("/echo?token=mine", host: "localhost")
        try await view.loadAndWait(next)
        reply = try await echo(view)
        #expect(reply["query"] == "token=mine")
        // Another host never gets them, even when the page navigates there itself.
        let recorderEvents = EventRecorder(view.engine)
        _ = try await view.page("location.href = '\(server.url("/echo?y=2").absoluteString)'; return true")
        try await recorderEvents.loadFinished()
        reply = try await echo(view)
        #expect(reply["query"] == "y=2")
        #expect(header(reply, "X-Token").isEmpty)
    }

    @Test(arguments: EngineKind.allCases)
    func systemAndPaymentSchemesGoToTheAppAndUnknownSchemesAreBlocked(_ kind: EngineKind) async throws {
        let view = try view(kind, NavigationPolicy())
        defer { view.close(); server.stop() }
        let page = server.url("/nav/page")
        try await view.loadAndWait(page)
        // One link at a time: a navigation started while another is still pending in the same
        // frame supersedes it (Chromium drops the first before any policy sees it).
        for (index, id) in ["tel", "mail", "wx", "ali", "store"].enumerated() {
            _ = try await view.page("document.getElementById('\(id)').click(); return true")
            try await eventually("the \(id) link handed over") { recorder.externals.count > index }
        }
        _ = try await view.page("document.getElementById('unknown').click(); return true")
        try await eventually("the unknown scheme blocked") { recorder.blocked.count >= 1 }
        // An iframe opening a payment app, and window.open of a phone number.
        _ = try await view.page("""
            const f = document.createElement('iframe'); f.src = 'alipay://pay?x=2'; document.body.appendChild(f);
            window.open('sms:10086'); return true
            """)
        try await eventually("every link handed over") { recorder.externals.count >= 7 && recorder.blocked.count >= 1 }
        let urls = Set(recorder.externals.map(\.url.absoluteString))
        #expect(urls == ["tel:+8610086", "mailto:a@example.com", "weixin://wap/pay?prepayid=1",
                         "alipays://platformapi/startapp?x=1", "https://apps.apple.com/app/id1", "alipay://pay?x=2", "sms:10086"])
        #expect(recorder.externals.allSatisfy { $0.sourceURL == page })
        #expect(recorder.blocked.map(\.url.absoluteString) == ["evil-scheme://steal"])
        #expect(view.engine.url == page)
    }

    @Test(arguments: EngineKind.allCases)
    func newWindowsGoToTheAppWithTheirOpener(_ kind: EngineKind) async throws {
        let view = try view(kind, NavigationPolicy())
        defer { view.close(); server.stop() }
        let page = server.url("/nav/page")
        try await view.loadAndWait(page)
        _ = try await view.page("document.getElementById('blank').click(); return true")
        try await eventually("the _blank link") { recorder.newWindows.count >= 1 }
        _ = try await view.page("window.open('/echo?open=1'); return true")
        try await eventually("window.open") { recorder.newWindows.count >= 2 }
        #expect(recorder.newWindows.map(\.url) == [server.url("/echo?popup=1"), server.url("/echo?open=1")])
        #expect(recorder.newWindows.allSatisfy { $0.openerURL == page && $0.opener === view })
        #expect(view.engine.url == page)
    }

    /// A configured payment host gets the `Referer` its provider requires; other hosts do not.
    @Test(arguments: EngineKind.allCases)
    func paymentHostsGetTheirReferer(_ kind: EngineKind) async throws {
        var policy = NavigationPolicy()
        policy.paymentReferers = [.init(hosts: ["localhost"], referer: "http://merchant.example.com/")]
        let view = try view(kind, policy)
        defer { view.close(); server.stop() }
        try await view.loadAndWait(server.url("/nav/page"))
        let events = EventRecorder(view.engine)
        _ = try await view.page("location.href = '\(server.url("/echo?pay=1", host: "localhost").absoluteString)'; return true")
        try await events.loadFinished()
        let reply = try await echo(view)
        #expect(reply["query"] == "pay=1")
        #expect(header(reply, "Referer") == ["http://merchant.example.com/"])
    }
}
