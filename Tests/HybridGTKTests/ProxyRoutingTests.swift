import Foundation
import HybridCore
import HybridFixtures
import Testing

/// "Proxy only what needs it" (docs/request-proxy.md): with ``ProxyPolicy/Routing/whenNeeded`` a
/// request the policy names leaves the engine only when the engine would lose something. Each row
/// of the decision table, on both engines: the proxy's record count tells which path a request took,
/// the echo tells what the server saw.
@Suite("Proxy routing: only what needs it", .serialized)
@MainActor
struct ProxyRoutingTests {
    static let fetchRow = """
        const r = await fetch(url, { credentials: 'include' });
        const echo = await r.json();
        return { status: r.status, token: (echo.headers.find((h) => h[0].toLowerCase() === 'x-app-token') || [])[1] || null };
        """

    private func rig(_ kind: EngineKind, cookiesInEngine: Bool = true, package: [String: String] = [:]) throws -> ProxyRig {
        try ProxyRig(kind, package: package) { policy in
            policy.routing = .whenNeeded
            policy.engineHasJarCookies = cookiesInEngine
            policy.headerRules = [.init(try! ConfigURLPattern("http://127.0.0.1:*/echo/secret*"), headers: ["X-App-Token": "t0ken"])]
            policy.trustedHosts = [try! ConfigURLPattern("http://localhost:*")]
        }
    }

    /// Which path one request took: `proxy` or `engine`, and what the page got.
    private func row(_ rig: ProxyRig, _ url: URL) async throws -> (path: String, value: JSONValue) {
        let before = rig.recordCount
        let value = try await rig.js(Self.fetchRow, ["url": .string(url.absoluteString)])
        return (rig.recordCount > before ? "proxy" : "engine", value)
    }

    @Test(arguments: EngineKind.allCases)
    func eachRowOfTheDecisionTable(_ kind: EngineKind) async throws {
        let rig = try rig(kind)
        defer { rig.close() }
        try await rig.open()
        // Nothing missing (cookies synced, no rule, same origin): the engine carries it.
        let plain = try await row(rig, rig.url("/echo?row=plain"))
        #expect(plain.path == "engine")
        #expect(plain.value["status"] == 200)
        // A header rule's token: the proxy adds it, the page never holds it.
        let secret = try await row(rig, rig.url("/echo/secret?row=rule"))
        #expect(secret.path == "proxy")
        #expect(secret.value["token"] == "t0ken")
        // A trusted host of another origin: the proxy, which skips the CORS check the echo would fail.
        let trusted = try await row(rig, rig.url("/echo?row=trusted", host: "localhost"))
        #expect(trusted.path == "proxy")
        #expect(trusted.value["status"] == 200)
        // A synchronous XHR the engine can carry is the engine's, not refused.
        let before = rig.recordCount
        let sync = try await rig.js("""
            const x = new XMLHttpRequest();
            x.open('GET', url, false);
            x.send();
            return x.status;
            """, ["url": .string(rig.url("/echo?row=sync").absoluteString)])
        #expect(sync == 200)
        #expect(rig.recordCount == before)
    }

    /// Cookies only the app's jar holds need the proxy, even for a request that needs nothing else.
    @Test(arguments: EngineKind.allCases)
    func cookiesOnlyTheJarHoldsNeedTheProxy(_ kind: EngineKind) async throws {
        let rig = try rig(kind, cookiesInEngine: false)
        defer { rig.close() }
        try await rig.open()
        #expect(try await row(rig, rig.url("/echo?row=jar")).path == "proxy")
    }

    /// A page at a custom scheme (an offline package on WebKit) has an origin no server expects:
    /// its named requests all need the proxy. On Blink a package is served at its real https origin,
    /// where the server's expectations hold, so this row is WebKit's.
    @Test func aCustomSchemePageNeedsTheProxy() async throws {
        let rig = try rig(.webkit, package: ["index.html": "<!doctype html><meta charset=utf-8><title>pkg</title>"])
        defer { rig.close() }
        try await rig.open(URL(string: "\(rig.packageOrigin)/index.html")!)
        let before = rig.recordCount
        let status = try await rig.js("return (await fetch(url)).status", ["url": .string(rig.url("/cors/echo?row=package&acao=$origin").absoluteString)])
        #expect(status == 200)
        #expect(rig.recordCount == before + 1)
    }
}

/// `fetch`'s `keepalive` on a proxied page: a beacon sent from `pagehide` must outlive its document.
/// The bridge answers no call of a document that has gone (its nonce is the old one), so the page
/// script leaves keepalive requests to the engine, which keeps them alive; without that the beacon
/// was lost on both engines.
@Suite("Proxy keepalive", .serialized)
@MainActor
struct ProxyKeepaliveTests {
    @Test(arguments: EngineKind.allCases)
    func aBeaconFromPagehideReachesTheServerAfterThePageIsGone(_ kind: EngineKind) async throws {
        let rig = try ProxyRig(kind)
        defer { rig.close() }
        let beacons = Locked<[String]>([])
        rig.server.route("/beacon") { request in
            beacons.mutate { $0.append((request.rawQuery ?? "") + " " + String(decoding: request.body, as: UTF8.self)) }
            return .text("ok")
        }
        try await rig.open()
        _ = try await rig.js("""
            addEventListener('pagehide', () => { fetch(url, { method: 'POST', body: 'bye', keepalive: true }); });
            return true;
            """, ["url": .string(rig.url("/beacon?from=pagehide").absoluteString)])
        let before = rig.recordCount
        try await rig.view.loadAndWait(rig.url("/proxy/page?next"))
        try await eventually("the beacon arrived") { beacons.value.contains("from=pagehide bye") }
        #expect(beacons.value == ["from=pagehide bye"])
        #expect(rig.recordCount == before, "the engine carried it, not the proxy")
    }
}
