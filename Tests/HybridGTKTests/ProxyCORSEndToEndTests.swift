import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// Cross-origin requests through the proxy pass or fail exactly as the engine's own do, send
/// the same preflights and `Origin`, and expose the same headers (issue item 8). The page is on
/// 127.0.0.1, the server's `/cors` endpoint on localhost answers as the query says, and its log
/// (`/cors/log`) shows what reached it: the engine's run and the proxy's must agree.
@Suite("Proxy CORS end to end", .serialized)
@MainActor
struct ProxyCORSEndToEndTests {
    /// `attempt(name, query, init)`: a fetch to `/cors/VIA` on the other origin, as
    /// `[[status, type, visible header names, echoed method] or error name, server log]`.
    static let helpers = """
        const serverLog = async (key) => (await (await fetch(`${base}/cors/log?key=${key}`)).json())
          .map((e) => [e.method, e.origin === location.origin ? 'page' : e.origin || null, e.requestMethod || null, e.requestHeaders || null, e.cookie || null]);
        const visible = (headers) => [...headers].map(([n]) => n).filter((n) => !['date', 'server', 'content-length'].includes(n)).sort();
        const run = Math.random().toString(36).slice(2);
        const attempt = async (name, query, init = {}, url = null) => {
          const key = via + '-' + name + '-' + run;
          let result;
          try {
            const r = await fetch(url ? url(key) : `${cross}/cors/${via}?key=${key}&${query}`, init);
            const text = await r.text();
            result = [r.status, r.type, visible(r.headers), r.type === 'opaque' ? null : JSON.parse(text).method];
          } catch (e) { result = e.name; }
          return [result, await serverLog(key)];
        };
        const xhr = (name, query, setup) => new Promise((resolve) => {
          const key = via + '-' + name + '-' + run;
          const x = new XMLHttpRequest();
          x.open('POST', `${cross}/cors/${via}?key=${key}&${query}`);
          if (setup) setup(x);
          x.onloadend = async () => resolve([[x.status, x.readyState, x.getAllResponseHeaders().split('\\r\\n').map((l) => l.split(':')[0]).filter((n) => n && !['date', 'server', 'content-length'].includes(n)).sort()],
                                             await serverLog(key)]);
          x.send('payload');
        });
        """

    /// Simple requests: no preflight; `Access-Control-Allow-Origin` decides; credentials mode
    /// decides cookies and the wildcard; `Access-Control-Expose-Headers` decides what is read.
    @Test(arguments: EngineKind.allCases)
    func simpleRequestsAndExposedHeaders(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await oracle.rig.open()
        let (engine, proxy) = try await oracle.run(Self.helpers + """
            return {
              noAllowOrigin: await attempt('noAllowOrigin', ''),
              wildcard: await attempt('wildcard', 'acao=*'),
              exactOrigin: await attempt('exactOrigin', 'acao=$origin'),
              otherOrigin: await attempt('otherOrigin', 'acao=https://elsewhere.example'),
              exposeOne: await attempt('exposeOne', 'acao=*&aceh=X-Custom'),
              exposeAll: await attempt('exposeAll', 'acao=*&aceh=*'),
              credentialsWildcard: await attempt('credentialsWildcard', 'acao=*', { credentials: 'include' }),
              credentialsExact: await attempt('credentialsExact', 'acao=$origin&acac=true', { credentials: 'include' }),
              credentialsNoAllow: await attempt('credentialsNoAllow', 'acao=$origin', { credentials: 'include' }),
              credentialsExposeAll: await attempt('credentialsExposeAll', 'acao=$origin&acac=true&aceh=*', { credentials: 'include' }),
              post: await attempt('post', 'acao=*', { method: 'POST', body: 'x', headers: { 'Content-Type': 'text/plain' } }),
              sameOriginMode: await attempt('sameOriginMode', 'acao=*', { mode: 'same-origin' }),
              noCors: await attempt('noCors', '', { mode: 'no-cors' }),
              redirectIn: await attempt('redirectIn', '', {}, (key) => `${base}/redirect/${via}?to=${encodeURIComponent(`${cross}/cors/${via}?key=${key}&acao=*`)}`),
              redirectInRefused: await attempt('redirectInRefused', '', {}, (key) => `${base}/redirect/${via}?to=${encodeURIComponent(`${cross}/cors/${via}?key=${key}`)}`),
              redirectFromCross: await attempt('redirectFromCross', '', {}, (key) => `${cross}/redirect/${via}?to=${encodeURIComponent(`${cross}/cors/${via}?key=${key}&acao=*`)}`),
            };
            """)
        for key in engine.objectValue?.keys.sorted() ?? [] {
            #expect(engine[key] == proxy[key], "\(key)")
        }
        #expect(engine["noAllowOrigin"]?.arrayValue?.first == "TypeError")
        #expect(engine["wildcard"]?.arrayValue?.first?.arrayValue?[1] == "cors")
    }

    /// Preflighted requests: unsafe methods and headers, a JSON Content-Type; the preflight's
    /// answer decides; it is cached for `Access-Control-Max-Age`; `*` does not cover
    /// Authorization; a failed preflight sends no request.
    @Test(arguments: EngineKind.allCases)
    func preflightedRequests(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await oracle.rig.open()
        let (engine, proxy) = try await oracle.run(Self.helpers + """
            const out = {
              put: await attempt('put', 'acao=$origin&acam=PUT', { method: 'PUT', body: 'x' }),
              putRefused: await attempt('putRefused', 'acao=$origin', { method: 'PUT', body: 'x' }),
              preflightWithoutAllowOrigin: await attempt('preflightWithoutAllowOrigin', 'pf_acam=PUT&ac_acao=$origin', { method: 'PUT' }),
              preflight404: await attempt('preflight404', 'acao=*&acam=PUT&pfstatus=404', { method: 'PUT' }),
              header: await attempt('header', 'acao=*&acah=x-foo', { headers: { 'X-Foo': '1' } }),
              headerRefused: await attempt('headerRefused', 'acao=*', { headers: { 'X-Foo': '1' } }),
              wildcardHeaders: await attempt('wildcardHeaders', 'acao=*&acah=*', { headers: { 'X-Foo': '1', 'X-Bar': '2' } }),
              wildcardAuthorization: await attempt('wildcardAuthorization', 'acao=*&acah=*', { headers: { Authorization: 'Bearer x' } }),
              json: await attempt('json', 'acao=*&acah=content-type', { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } }),
              credentialed: await attempt('credentialed', 'acao=$origin&acac=true&acam=DELETE', { method: 'DELETE', credentials: 'include' }),
              credentialedWildcard: await attempt('credentialedWildcard', 'acao=$origin&acac=true&acam=*', { method: 'DELETE', credentials: 'include' }),
            };
            // A second identical request is answered by the cached preflight.
            const key = via + '-cached-' + run;
            for (let i = 0; i < 2; i++) await fetch(`${cross}/cors/${via}?key=${key}&acao=$origin&acam=PUT&maxage=60`, { method: 'PUT' });
            out.cached = await serverLog(key);
            return out;
            """)
        for key in engine.objectValue?.keys.sorted() ?? [] {
            #expect(engine[key] == proxy[key], "\(key)")
        }
        #expect(engine["cached"]?.arrayValue?.map { $0.arrayValue?.first } == ["OPTIONS", "PUT", "PUT"])
    }

    /// XHR: a refused response is an `error` event with status 0; `withCredentials` refuses the
    /// wildcard; upload listeners force a preflight for an otherwise simple POST;
    /// getAllResponseHeaders lists only the exposed headers.
    @Test(arguments: EngineKind.allCases)
    func xhrFollowsTheSameRules(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind)
        defer { oracle.close() }
        try await oracle.rig.open()
        let (engine, proxy) = try await oracle.run(Self.helpers + """
            return {
              refused: await xhr('refused', ''),
              allowed: await xhr('allowed', 'acao=*&aceh=x-custom'),
              credentialsWildcard: await xhr('credentialsWildcard', 'acao=*', (x) => { x.withCredentials = true; }),
              credentials: await xhr('credentials', 'acao=$origin&acac=true', (x) => { x.withCredentials = true; }),
              uploadListener: await xhr('uploadListener', 'acao=*', (x) => { x.upload.onprogress = () => {}; }),
              customHeader: await xhr('customHeader', 'acao=*&acah=x-foo', (x) => x.setRequestHeader('X-Foo', '1')),
            };
            """)
        for key in engine.objectValue?.keys.sorted() ?? [] {
            #expect(engine[key] == proxy[key], "\(key)")
        }
        #expect(engine["refused"]?.arrayValue?.first == [0, 4, []])
    }

    /// A host the app trusts (``ProxyPolicy/trustedHosts``) is reached whatever its CORS headers
    /// say — the explicit exception for the app's own API; other hosts still are not.
    @Test(arguments: EngineKind.allCases)
    func trustedHostsAreTheAppsExplicitException(_ kind: EngineKind) async throws {
        let oracle = try ProxyOracle(kind) { $0.trustedHosts = [try! ConfigURLPattern("http://localhost:*")] }
        defer { oracle.close() }
        try rig(oracle).jar.setCookie(fromHeader: "sid=trusted; Path=/", for: oracle.rig.url("/", host: "localhost"))
        try await oracle.rig.open()
        let value = try await oracle.rig.js(Self.helpers + """
            return {
              trusted: await attempt('trusted', '', { method: 'PUT', headers: { 'X-Foo': '1' } }),
              omitted: await attempt('omitted', '', { credentials: 'omit' }),
            };
            """, ["via": "proxy", "base": .string(oracle.base), "cross": .string(oracle.cross)])
        // No preflight, no Origin, the jar's cookie, every header readable.
        #expect(value["trusted"] == [[200, "cors", ["content-type", "x-custom", "x-other"], "PUT"], [["PUT", nil, nil, nil, "sid=trusted"]]])
        #expect(value["omitted"]?.arrayValue?.last == [["GET", nil, nil, nil, nil]])
    }

    /// A page from an offline package (`app://pkg` on WebKit, an https stand-in on Blink) is
    /// cross-origin to every server: without a trusted host its proxied requests get the CORS
    /// check with `Origin` set to the package's origin, as the engine's own would.
    @Test(arguments: EngineKind.allCases)
    func packagePagesAreCrossOriginToEveryServer(_ kind: EngineKind) async throws {
        let page = "<!doctype html><meta charset=utf-8><title>pkg</title><p>offline</p>"
        let rig = try ProxyRig(kind, package: ["index.html": page]) { policy in
            policy.requests = [try! ConfigURLPattern("http://127.0.0.1:*/*/proxy*")]
        }
        defer { rig.close() }
        try await rig.open(URL(string: "\(rig.packageOrigin)/index.html")!)
        let script = """
            const attempt = async (query) => {
              try { const r = await fetch(`${base}/cors/${via}?${query}`); return [r.status, r.type, (await r.json()).headers.find((h) => h[0] === 'Origin')[1]]; }
              catch (e) { return e.name; }
            };
            return { refused: await attempt('x=1'), allowed: await attempt('acao=$origin'), wildcard: await attempt('acao=*') };
            """
        let base = rig.url("/").absoluteString.dropLast().description
        let proxy = try await rig.js(script, ["via": "proxy", "base": .string(base)])
        #expect(proxy["refused"] == "TypeError")
        #expect(proxy["allowed"] == [200, "cors", .string(rig.packageOrigin)])
        #expect(proxy["wildcard"] == [200, "cors", .string(rig.packageOrigin)])
        // The engine's own requests from the same page: the same on both engines. Chromium refuses a
        // request from a public (https) origin to a loopback server unless the origin holds its
        // loopback-network permission (Local Network Access), which Blink's driver grants to the
        // origins that may call the bridge, so they reach its byte channel (docs/engines.md, "The
        // byte channel on Blink"): this package page is one. The proxy reaches only what the app's
        // policy names and does not model those rules (docs/request-proxy.md).
        let engine = try await rig.js(script, ["via": "engine", "base": .string(base)])
        #expect(engine == proxy)
    }

    private func rig(_ oracle: ProxyOracle) -> ProxyRig { oracle.rig }
}
