#if os(Linux)
import Foundation
import HybridCore
import HybridServer
import HybridFixtures

/// The demo's web origin on loopback: HybridServer's test routes (cookies, cross-host
/// redirects, echo, multipart, slow responses) plus two tour pages served over HTTP — the
/// cookie page a cross-host redirect lands on, and a page with slow images for progress.
final class DemoOrigin {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
        TestRoutes.install(on: server)
        server.route("/demo/cookies") { request in
            let header = request.headers["Cookie"] ?? ""
            return ServerResponse.html(Self.cookiePage(header: header)).adding(header: "Set-Cookie", "demo_server=s1; Path=/")
        }
        server.route("/demo/progress") { _ in .html(Self.progressPage) }
    }

    deinit { server.stop() }

    /// `http://127.0.0.1:PORT`.
    var origin: String { "http://127.0.0.1:\(server.port)" }

    /// Both loopback sites (`127.0.0.1` and `localhost`): cookies do not separate by port.
    var origins: [OriginPattern] {
        [OriginPattern(stringLiteral: origin), OriginPattern(stringLiteral: "http://localhost:\(server.port)")]
    }

    func url(_ path: String, host: String? = nil) -> URL { server.url(path, host: host) }

    private static func page(title: String, body: String, script: String) -> String {
        """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><title>\(title) · HybridKit demo</title>
        <style>body{margin:0;font-family:"DejaVu Sans",sans-serif;background:#f4f6fb;color:#1d2433}
        header{background:linear-gradient(120deg,#2750d6,#7b3fe4);color:#fff;padding:18px 28px}h1{margin:0;font-size:26px}
        main{padding:16px 28px}code{background:#fff;padding:2px 6px;border-radius:4px}.ok{color:#137a3b;font-weight:600}
        .fail{color:#b3261e;font-weight:600}</style></head>
        <body><header><h1>\(title)</h1></header><main>\(body)<p id="result">running…</p></main>
        <script>
        function report(feature, ok, figure, details) {
          const result = document.getElementById('result');
          result.className = ok ? 'ok' : 'fail';
          result.textContent = (ok ? '✔ ok — ' : '✘ FAILED — ') + figure;
          return hybrid.call('demo', 'report', { feature, ok, figure, details });
        }
        \(script)
        </script></body></html>
        """
    }

    /// Served on `localhost` after a 302 from `127.0.0.1`: shows the `Cookie` header its request
    /// carried, sets a cookie by script (`Set-Cookie` on the response sets another).
    static func cookiePage(header: String) -> String {
        page(title: "Cookies both ways",
             body: "<p>Loaded at <b id=\"host\"></b> after a 302 from 127.0.0.1. Its request carried <code id=\"header\"></code>.</p>",
             script: """
                const header = \(JSONValue.string(header).jsonText);
                document.getElementById('host').textContent = location.host;
                document.getElementById('header').textContent = header || '(no cookies)';
                document.cookie = 'demo_page=p1; path=/';
                hybrid.ready.then(() => {
                  const ok = location.hostname === 'localhost' && header.includes('demo_native=jar-localhost');
                  report('cookies', ok, ok ? 'the jar cookie crossed the 302 to localhost' : 'request carried: ' + header,
                         { header, host: location.host, documentCookie: document.cookie });
                });
                """)
    }

    /// Three images that each take 400 ms: the load reports progress on the way.
    static let progressPage = page(
        title: "Progress",
        body: "<p>Three images that each take 400 ms; the app's progress bar follows the load.</p>"
            + (1...3).map { "<img alt=\"\" width=\"40\" height=\"40\" src=\"/slow?ms=400&amp;i=\($0)\">" }.joined(),
        script: """
            addEventListener('load', () => hybrid.ready.then(() => report('progress', true, 'page and slow images loaded', {})));
            """)
}
#endif
