import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// The proxy from an offline-package page, its token headers, and callers that try to use it
/// for what the policy does not allow.
@Suite("Proxy sources and hostile callers", .serialized)
@MainActor
struct ProxyHostileTests {
    /// The case the proxy exists for: a page served by a custom scheme talks to the app's
    /// server with the app's cookies (HttpOnly included) and gets Set-Cookie back into the jar.
    @Test(arguments: EngineKind.allCases)
    func packagePageReachesTheServerWithTheJarsCookies(_ kind: EngineKind) async throws {
        let page = "<!doctype html><meta charset=utf-8><title>pkg</title><p>offline</p>"
        // A package page's origin is one no server lists: the app names its API host as trusted.
        let rig = try ProxyRig(kind, package: ["index.html": page]) { $0.trustedHosts = [try! ConfigURLPattern("http://127.0.0.1:*")] }
        defer { rig.close() }
        try rig.jar.setCookie(fromHeader: "sid=pkg; HttpOnly; Path=/", for: rig.url("/"))
        try await rig.open(URL(string: "\(rig.packageOrigin)/index.html")!)
        let value = try await rig.js("""
            const echo = await (await fetch(cookies)).json();
            const set = await (await fetch(setURL, { method: 'POST', body: 'x' })).json();
            const xhr = await new Promise((resolve) => {
              const x = new XMLHttpRequest();
              x.open('POST', echoURL);
              x.setRequestHeader('X-From', 'package');
              x.responseType = 'json';
              x.onload = () => resolve(x.response);
              x.send(JSON.stringify({ a: 1 }));
            });
            return { origin: location.origin, cookies: echo.header, xhrBody: xhr.body,
                     from: xhr.headers.filter(h => h[0] === 'X-From').map(h => h[1]) };
            """, ["cookies": .string(rig.url("/cookies/echo").absoluteString),
                  "setURL": .string(rig.url("/cookies/set?fresh=1").absoluteString),
                  "echoURL": .string(rig.url("/echo").absoluteString)])
        #expect(value["origin"] == .string(rig.packageOrigin))
        #expect(value["cookies"] == "sid=pkg")
        #expect(value["xhrBody"] == #"{"a":1}"#)
        #expect(value["from"] == ["package"])
        #expect(rig.jar.cookieHeader(for: rig.url("/")) == "sid=pkg; fresh=1")
    }

    /// Token headers go to the URLs the policy names only, and `Authorization` is dropped when
    /// a redirect leaves the origin.
    @Test(arguments: EngineKind.allCases)
    func tokenHeadersStayWithTheirURLs(_ kind: EngineKind) async throws {
        let rig = try ProxyRig(kind) { policy in
            policy.headerRules = [.init(try! ConfigURLPattern("http://127.0.0.1:*/echo*"), headers: ["X-App-Token": "t1"])]
            // The page reads localhost's echo (cross-origin): the app trusts that host.
            policy.trustedHosts = [try! ConfigURLPattern("http://localhost:*")]
        }
        defer { rig.close() }
        try await rig.open()
        let crossAuth = rig.url("/redirect/cross?to=" + ProxyEndToEndTests.encode("/echo")).absoluteString
        let value = try await rig.js("""
            const header = (r, n) => r.headers.filter(p => p[0].toLowerCase() === n).map(p => p[1]);
            const mine = await (await fetch(base + '/echo')).json();
            const other = await (await fetch(other_)).json();
            const moved = await (await fetch(crossAuth, { headers: { Authorization: 'Bearer secret' } })).json();
            return { mine: header(mine, 'x-app-token'), other: header(other, 'x-app-token'),
                     movedAuth: header(moved, 'authorization'), movedHost: moved.headers.find(p => p[0] === 'Host')[1] };
            """, ["base": .string(rig.url("/").absoluteString.dropLast().description),
                  "other_": .string(rig.url("/echo", host: "localhost").absoluteString),
                  "crossAuth": .string(crossAuth)])
        #expect(value["mine"] == ["t1"])
        #expect(value["other"] == [])
        #expect(value["movedAuth"] == [])
        #expect(value["movedHost"]?.stringValue?.hasPrefix("localhost") == true)
    }

    /// A page calling the module directly cannot reach what the policy does not name, nor a
    /// non-http scheme; a page whose origin is not allowed cannot call it at all.
    @Test(arguments: EngineKind.allCases)
    func directCallsOutsideThePolicyAreRefused(_ kind: EngineKind) async throws {
        let rig = try ProxyRig(kind) { $0.requests = [try! ConfigURLPattern("http://127.0.0.1:*/echo*")] }
        defer { rig.close() }
        try await rig.open()
        let value = try await rig.js("""
            const attempt = async (url) => {
              try { await window.hybrid.call('proxy', 'request', { url, method: 'GET', headers: [['Cookie', 'forged=1']] }); return 'ok'; }
              catch (e) { return e.code; }
            };
            return [await attempt(outside), await attempt('file:///etc/passwd'), await attempt('javascript:alert(1)')];
            """, ["outside": .string(rig.url("/cookies/echo").absoluteString)])
        #expect(value == ["proxy_denied", "proxy_denied", "proxy_denied"])
        #expect(rig.recordCount == 3)
        #expect(rig.records.value.allSatisfy { $0.failure == "proxy_denied" })
        // A page on another origin (localhost is not allowed) is refused by the bridge itself.
        try await rig.open(rig.url("/proxy/page", host: "localhost"))
        let denied = try await rig.js("""
            try { await window.hybrid.call('proxy', 'request', { url: echo, method: 'GET', headers: [] }); return 'ok'; }
            catch (e) { return e.code; }
            """, ["echo": .string(rig.url("/echo").absoluteString)])
        #expect(denied == "denied" || denied == "unknown_module")
        #expect(rig.recordCount == 3)
    }

    /// A server cannot redirect the proxy out of http(s) (to read a local file, say).
    @Test(arguments: EngineKind.allCases)
    func redirectsOutOfHTTPAreRefused(_ kind: EngineKind) async throws {
        let rig = try ProxyRig(kind)
        defer { rig.close() }
        try await rig.open()
        let value = try await rig.js("""
            try { await fetch(url); return 'ok'; } catch (e) { return [e.name, e.code]; }
            """, ["url": .string(rig.url("/redirect?to=" + ProxyEndToEndTests.encode("file:///etc/passwd")).absoluteString)])
        #expect(value == ["TypeError", "proxy_denied"])
    }

    /// A forged Cookie header from the page never reaches the server: the jar decides.
    @Test(arguments: EngineKind.allCases)
    func pagesCannotForgeCookies(_ kind: EngineKind) async throws {
        let rig = try ProxyRig(kind)
        defer { rig.close() }
        try await rig.open()
        let value = try await rig.js("""
            const r = await window.hybrid.call('proxy', 'request', { url, method: 'GET', headers: [['Cookie', 'forged=1'], ['Host', 'evil.example']] });
            return JSON.parse(r.text);
            """, ["url": .string(rig.url("/cookies/echo").absoluteString)])
        #expect(value["header"] == nil)
        #expect(value["cookies"] == [])
        #expect(value["host"] == "127.0.0.1")
    }
}
