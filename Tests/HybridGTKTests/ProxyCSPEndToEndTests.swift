import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// The page's own Content Security Policy and mixed-content blocking hold through the proxy
/// (#28 items 1 and 3): the same page script runs against the engine's networking and through
/// the proxy and must get the same verdict — allowed or refused, the same error, the same
/// `securitypolicyviolation` events — and a refused request never reaches the server (`/cors/log`).
@Suite("Proxy CSP end to end", .serialized)
@MainActor
struct ProxyCSPEndToEndTests {
    /// `attempt(name, url(key), init)` → `[status or error name, events, requests the server got]`;
    /// `xhr(name, url(key))` the same for an XHR (`[status, last event]`). URLs in events are made
    /// comparable by replacing the run's `via` and random key.
    static let helpers = """
        const run = Math.random().toString(36).slice(2);
        const events = [];
        document.addEventListener('securitypolicyviolation', (e) => events.push([e.constructor.name, e.blockedURI.split(via).join('VIA').split(run).join('RUN'),
          e.violatedDirective, e.effectiveDirective, e.disposition]));
        const served = async (key) => (await (await fetch(`${base}/cors/log?key=${key}`)).json()).length;
        const settle = () => new Promise((r) => setTimeout(r, 50));
        const attempt = async (name, url, init = {}) => {
          const key = name + '-' + via + '-' + run;
          events.length = 0;
          let result;
          try { const r = await fetch(url(key), init); await r.text(); result = r.status; } catch (e) { result = e.name + ': ' + e.message; }
          await settle();
          return [result, events.slice(), await served(key)];
        };
        const xhr = (name, url) => new Promise((resolve) => {
          const key = name + '-' + via + '-' + run;
          events.length = 0;
          const x = new XMLHttpRequest();
          let last = null;
          x.onerror = () => { last = 'error'; };
          x.onload = () => { last = 'load'; };
          x.onloadend = async () => { await settle(); resolve([[x.status, last], events.slice(), await served(key)]); };
          x.open('GET', url(key));
          x.send();
        });
        """

    /// Installs `/csp/page?csp=…&ro=…&meta=…`: a page with those header and meta policies.
    static func installPage(_ rig: ProxyRig) {
        rig.server.route("/csp/page") { request in
            var headers: HTTPHeaders = ["Content-Type": "text/html; charset=utf-8"]
            if let csp = request.query("csp") { headers.add("Content-Security-Policy", csp) }
            if let ro = request.query("ro") { headers.add("Content-Security-Policy-Report-Only", ro) }
            let meta = request.query("meta").map { "<meta http-equiv=\"Content-Security-Policy\" content=\"\($0)\">" } ?? ""
            let html = "<!doctype html><html><head><meta charset=utf-8>\(meta)<title>csp</title></head><body><p>csp</p></body></html>"
            return ServerResponse(status: 200, headers: headers, body: Data(html.utf8))
        }
    }

    static func open(_ oracle: ProxyOracle, _ query: String) async throws {
        installPage(oracle.rig)
        try await oracle.rig.open(URL(string: "\(oracle.base)/csp/page?\(query)")!)
    }

    static func expectSame(_ engine: JSONValue, _ proxy: JSONValue) {
        for key in engine.objectValue?.keys.sorted() ?? [] {
            #expect(engine[key] == proxy[key], "\(key): engine \(engine[key].map { "\($0)" } ?? "nil"), proxy \(proxy[key].map { "\($0)" } ?? "nil")")
        }
    }

    /// `connect-src 'self'` from the response header: same-origin requests go, another origin is
    /// refused (fetch, `no-cors` fetch, XHR, and a same-origin request redirected there) with the
    /// engine's error and event, and the server never sees it.
    @Test(arguments: EngineKind.allCases)
    func headerPolicyRefusesOtherOriginsAsTheEngineDoes(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await Self.open(oracle, "csp=" + "connect-src 'self'".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        let (engine, proxy) = try await oracle.run(Self.helpers + """
            return {
              same: await attempt('same', (k) => `${base}/cors/${via}?key=${k}`),
              cross: await attempt('cross', (k) => `${cross}/cors/${via}?key=${k}&acao=*`),
              noCors: await attempt('noCors', (k) => `${cross}/cors/${via}?key=${k}`, { mode: 'no-cors' }),
              xhr: await xhr('xhr', (k) => `${cross}/cors/${via}?key=${k}&acao=*`),
              redirected: await attempt('redirected', (k) => `${base}/redirect/${via}?to=${encodeURIComponent(`${cross}/cors/${via}?key=${k}&acao=*`)}`),
            };
            """)
        Self.expectSame(engine, proxy)
        #expect(engine["same"]?.arrayValue?.first == 200)
        #expect(engine["cross"]?.arrayValue?.first?.stringValue?.hasPrefix("TypeError") == true)
        #expect(engine["cross"]?.arrayValue?.last == 0)
        #expect(proxy["cross"]?.arrayValue?[1].arrayValue?.count == 1)
        #expect(oracle.rig.records.value.contains { $0.failure == "csp_denied" })
    }

    /// `default-src` decides when there is no `connect-src`, and the event names the directive the
    /// engine names; a path-limited source allows its path only.
    @Test(arguments: EngineKind.allCases)
    func defaultSrcAndPathsDecideAsTheEngineDoes(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        let policy = "default-src 'self' 'unsafe-inline' \(oracle.cross)/cors/".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        try await Self.open(oracle, "csp=\(policy)")
        let (engine, proxy) = try await oracle.run(Self.helpers + """
            return {
              inPath: await attempt('inPath', (k) => `${cross}/cors/${via}?key=${k}&acao=*`),
              outOfPath: await attempt('outOfPath', (k) => `${cross}/echo/${via}?key=${k}`),
            };
            """)
        Self.expectSame(engine, proxy)
        #expect(engine["inPath"]?.arrayValue?.first == 200)
        #expect(engine["outOfPath"]?.arrayValue?.first?.stringValue?.hasPrefix("TypeError") == true)
    }

    /// A `<meta>` policy restricts as a header one does, and a report-only header policy reports
    /// (the event's disposition `report`) without blocking.
    @Test(arguments: EngineKind.allCases)
    func metaPoliciesRestrictAndReportOnlyPoliciesReport(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        let meta = "connect-src 'self' http://localhost:*/cors/".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let reportOnly = "connect-src 'self'".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        try await Self.open(oracle, "meta=\(meta)&ro=\(reportOnly)")
        let (engine, proxy) = try await oracle.run(Self.helpers + """
            return {
              allowedButReported: await attempt('allowedButReported', (k) => `${cross}/cors/${via}?key=${k}&acao=*`),
              refusedByMeta: await attempt('refusedByMeta', (k) => `${cross}/echo/${via}?key=${k}`),
            };
            """)
        Self.expectSame(engine, proxy)
        #expect(engine["allowedButReported"]?.arrayValue?.first == 200)
        #expect(engine["refusedByMeta"]?.arrayValue?.first?.stringValue?.hasPrefix("TypeError") == true)
    }

    /// Hostile: a script injected into a page whose policy is `connect-src 'self'` calls the bridge
    /// itself, bypassing the page script's hooks, to send data to another origin: the native side
    /// holds the document's policy and refuses; nothing reaches the server.
    @Test(arguments: EngineKind.allCases)
    func anInjectedScriptCannotExfiltrateThroughTheBridge(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await Self.open(oracle, "csp=" + "connect-src 'self'".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        let key = "exfil-\(UUID().uuidString)"
        let result = try await oracle.rig.js("""
            try {
              await window.hybrid.call('proxy', 'request', { url: `${cross}/cors/proxy?key=${key}&acao=*`, method: 'POST', headers: [],
                body: btoa('secret'), mode: 'no-cors' });
              return 'sent';
            } catch (e) { return e.code; }
            """, ["cross": .string(oracle.cross), "key": .string(key)])
        #expect(result == "csp_denied")
        let served = try await oracle.rig.js("return (await (await fetch(`${base}/cors/log?key=${key}`)).json()).length",
                                             ["base": .string(oracle.base), "key": .string(key)])
        #expect(served == 0)
    }

    /// Mixed content: a secure page (the offline-package stand-in: `app://pkg` on WebKit,
    /// `https://pkg…` on Blink) asking for plain http is refused as the engine refuses it, unsent;
    /// loopback is potentially trustworthy and goes.
    @Test(arguments: EngineKind.allCases)
    func securePagesCannotReachPlainHTTP(_ kind: EngineKind) async throws {
        let page = "<!doctype html><meta charset=utf-8><title>pkg</title><p>offline</p>"
        let rig = try ProxyRig(kind, package: ["index.html": page]) { policy in
            policy.requests = [try! ConfigURLPattern("http://127.0.0.1:*/*/proxy*"), try! ConfigURLPattern("http://mixed.hybrid-test.invalid/proxy*")]
            policy.trustedHosts = [try! ConfigURLPattern("http://127.0.0.1:*")]
        }
        defer { rig.close() }
        try await rig.open(URL(string: "\(rig.packageOrigin)/index.html")!)
        let script = """
            const attempt = async (url) => { try { const r = await fetch(url); return r.status; } catch (e) { return e.name; } };
            return { insecure: await attempt(`http://mixed.hybrid-test.invalid/${via}`), loopback: await attempt(`${base}/echo/${via}`) };
            """
        let base = rig.url("/").absoluteString.dropLast().description
        let before = rig.recordCount
        let proxy = try await rig.js(script, ["via": "proxy", "base": .string(base)])
        #expect(proxy["insecure"] == "TypeError")
        #expect(proxy["loopback"] == 200)
        #expect(rig.records.value.dropFirst(before).contains { $0.failure == "mixed_content" })
        let engine = try await rig.js(script, ["via": "engine", "base": .string(base)])
        #expect(engine["insecure"] == "TypeError")
    }

    /// The app's exception (`ProxyPolicy.mixedContentExceptions`) names a plain-http host a secure
    /// page may reach: that host's request is sent (here it fails in DNS, not as mixed content); an
    /// XHR to another plain-http host still gets the engine's `error` event, unsent.
    @Test(arguments: EngineKind.allCases)
    func onlyTheAppsNamedHostsAreMixedContentExceptions(_ kind: EngineKind) async throws {
        let page = "<!doctype html><meta charset=utf-8><title>pkg</title><p>offline</p>"
        let rig = try ProxyRig(kind, package: ["index.html": page]) { policy in
            policy.requests = [try! ConfigURLPattern("http://*.hybrid-test.invalid/*")]
            policy.mixedContentExceptions = [try! ConfigURLPattern("http://allowed.hybrid-test.invalid")]
        }
        defer { rig.close() }
        try await rig.open(URL(string: "\(rig.packageOrigin)/index.html")!)
        let result = try await rig.js("""
            const viaXHR = (url) => new Promise((resolve) => {
              const x = new XMLHttpRequest();
              x.onerror = () => resolve(['error', x.status]);
              x.onload = () => resolve(['load', x.status]);
              x.open('GET', url);
              x.send();
            });
            let named;
            try { await fetch('http://allowed.hybrid-test.invalid/x'); named = 'resolved'; } catch (e) { named = e.name; }
            return { named, other: await viaXHR('http://other.hybrid-test.invalid/x') };
            """)
        #expect(result["other"] == ["error", 0])
        let failures = rig.records.value.map { [$0.url.host ?? "", $0.failure ?? ""] }
        #expect(failures.contains(["other.hybrid-test.invalid", "mixed_content"]))
        #expect(failures.contains { $0[0] == "allowed.hybrid-test.invalid" && $0[1] != "mixed_content" }, "\(failures)")
    }
}

/// Subresource integrity through the proxy (#28 item 2): the same `fetch(…, {integrity})` gets the
/// engine's verdict — a matching body resolves, a wrong or tampered one rejects with the engine's
/// TypeError and none of the body — and the strongest algorithm decides.
@Suite("Proxy SRI end to end", .serialized)
@MainActor
struct ProxySRIEndToEndTests {
    @Test(arguments: EngineKind.allCases)
    func integrityDecidesAsTheEngineDoes(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        // The body the server sends; the page is given its real digests.
        let body = "{\"ok\":true,\"n\":42}"
        oracle.rig.server.route("/sri") { _ in ServerResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8)) }
        try await oracle.rig.open()
        let sha256 = "sha256-" + SubresourceIntegrity.Algorithm.sha256.digest(Data(body.utf8)).base64EncodedString()
        let sha384 = "sha384-" + SubresourceIntegrity.Algorithm.sha384.digest(Data(body.utf8)).base64EncodedString()
        let sha512 = "sha512-" + SubresourceIntegrity.Algorithm.sha512.digest(Data(body.utf8)).base64EncodedString()
        let tampered = "sha384-" + SubresourceIntegrity.Algorithm.sha384.digest(Data("{\"ok\":true,\"n\":43}".utf8)).base64EncodedString()
        let (engine, proxy) = try await oracle.run("""
            const attempt = async (integrity, init = {}) => {
              try { const r = await fetch(`${base}/sri/${via}`, { integrity, ...init }); return [r.status, await r.text()]; }
              catch (e) { return e.name + ': ' + e.message; }
            };
            return {
              sha256: await attempt(sha256), sha384: await attempt(sha384), sha512: await attempt(sha512),
              wrong: await attempt('sha256-wrong'),
              tampered: await attempt(tampered),
              strongestWrong: await attempt(sha256 + ' sha512-wrong'),
              strongestRight: await attempt('sha256-wrong ' + sha512),
              options: await attempt(sha384 + '?ct=application/json'),
              unknownOnly: await attempt('md5-abc'),
              crossOrigin: await (async () => { try { const r = await fetch(`${cross}/cors/${via}?acao=*`, { integrity: 'sha256-x' }); return r.status; } catch (e) { return e.name; } })(),
            };
            """, ["sha256": .string(sha256), "sha384": .string(sha384), "sha512": .string(sha512), "tampered": .string(tampered)])
        for key in engine.objectValue?.keys.sorted() ?? [] {
            #expect(engine[key] == proxy[key], "\(key): engine \(engine[key].map { "\($0)" } ?? "nil"), proxy \(proxy[key].map { "\($0)" } ?? "nil")")
        }
        #expect(engine["sha384"] == [200, .string(body)])
        #expect(engine["tampered"]?.stringValue?.hasPrefix("TypeError") == true)
        #expect(oracle.rig.records.value.contains { $0.failure == "integrity_mismatch" })
    }
}
