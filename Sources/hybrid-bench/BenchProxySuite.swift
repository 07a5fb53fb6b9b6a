#if os(Linux)
import Foundation
import HybridCore
import HybridGTK
import HybridServer
import HybridFixtures

/// `hybrid bench proxy`: what carrying a request natively costs. The same page POSTs the same
/// 64 KB body to the same loopback echo handler, once with the engine's own `fetch` and once
/// through the request proxy (page hook → bridge → URLSession with the cookie jar → bridge →
/// `Response`), interleaved in batches so both see the same machine load.
enum ProxyBenchSuite: BenchSuite {
    static let name = "proxy"
    static let keys = """
        A page on LoopbackServer POSTs a 64 KB binary body to /echo (the reply echoes it as base64) and
        reads the JSON, in batches of 10 alternating between the engine's fetch and the proxied fetch
        (N batches each, default 10, after a warm-up; median of the batches' per-request means):
        native_fetch_ms    the engine's own fetch (its network process)
        proxy_fetch_ms     the same request through RequestProxy (bridge + URLSession + CookieJar)
        proxy_ratio        proxy_fetch_ms / native_fetch_ms (target at most 1.5)
        proxy_native_ms    the median time RequestProxy.perform took of a proxied request (URLSession,
                           jar, CORS): the rest of proxy_fetch_ms is the page script and the bridge
        Then a 4 KB JSON GET answered `Cache-Control: max-age=600`, fetched once by each side to store
        it, then in alternating batches of 50 from each side's cache (the server must see each URL
        once: a request that reached it fails the bench):
        native_cached_ms   the engine's fetch answered by its own HTTP cache
        proxy_cached_ms    the proxied fetch answered by the proxy's ProxyCache
        cached_get_ratio   proxy_cached_ms / native_cached_ms (target at most 1.5)
        proxy_cached_native_ms  the median time RequestProxy.perform took of a cached GET
        """

    @MainActor static func run(_ options: BenchOptions) async throws -> BenchReport {
        let batches = max(options.iterations ?? 10, 1)
        let server = try LoopbackServer()
        defer { server.stop() }
        TestRoutes.install(on: server)
        // The cached GET: 4 KB of JSON, fresh for 10 minutes; each hit is counted.
        let served = Counter()
        let document = Data(("{\"items\":[" + (0..<100).map { "\"item \($0) \(String(repeating: "x", count: 24))\"" }.joined(separator: ",") + "]}").utf8)
        server.route("/cached") { _ in
            served.add(0)
            return ServerResponse(status: 200, headers: ["Content-Type": "application/json", "Cache-Control": "max-age=600"], body: document)
        }
        server.route("/bench/page") { _ in .html("<!doctype html><meta charset=utf-8><title>proxy bench</title><p>bench</p>") }
        let port = server.url("/").port ?? 0
        // Only /echo/proxied goes through the proxy; /echo stays with the engine. Same handler.
        var policy = try ProxyPolicy(requests: ["http://127.0.0.1:\(port)/echo/proxied", "http://127.0.0.1:\(port)/cached/proxied"])
        policy.routing = .always
        // Both caches start empty, in directories of this run: the engine's (a persistent session:
        // WebKit's ephemeral one caches no fetch) and the proxy's.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-bench-proxy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        policy.cache = ProxyCache.Configuration(directory: scratch.appendingPathComponent("proxy-cache"))
        let proxied = Counter(), hits = Counter()
        let proxy = RequestProxy(policy: policy, jar: CookieJar()) { record in
            if record.method == "POST" { proxied.add(record.duration) } else if record.cache == "hit" { hits.add(record.duration) }
        }
        let provider = try options.makeProvider(session: .persistent(directory: scratch.appendingPathComponent("engine")))
        var configuration = HybridWebViewConfiguration()
        configuration.modules = [ProxyModule(proxy: proxy, allowedOrigins: [OriginPattern("http://127.0.0.1:\(port)")])]
        if let script = ProxyModule.userScript(policy: policy) { configuration.engine.userScripts.append(script) }
        let view = try HybridWebView(provider: provider, configuration: configuration)
        defer { view.close() }
        try await view.engine.waitForLoad(timeout: BenchOptions.loadTimeout) { view.load(server.url("/bench/page")) }
        let result = try await view.engine.callAsync("""
            await window.hybrid.ready;
            const body = new Uint8Array(65536);
            for (let i = 0; i < body.length; i++) body[i] = i % 251;
            const once = async (url) => {
              const reply = await (await fetch(url, { method: 'POST', body })).json();
              if (reply.bodyLength !== 65536) throw new Error('echo returned ' + reply.bodyLength + ' bytes');
            };
            // A side's mean time per request over `size` requests of `one`; each side is measured
            // once untimed, then `batches` times, alternating; the median batch counts.
            const median = (xs) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)];
            const compare = async (one, size, first, second) => {
              const batch = async (url) => {
                const start = performance.now();
                for (let i = 0; i < size; i++) await one(url);
                return (performance.now() - start) / size;
              };
              await batch(first); await batch(second);
              const a = [], b = [];
              for (let i = 0; i < batches; i++) { a.push(await batch(first)); b.push(await batch(second)); }
              return [median(a), median(b)];
            };
            const [nativeMs, proxiedMs] = await compare(once, 10, native, proxied);
            const get = async (url) => {
              const reply = await (await fetch(url)).json();
              if (reply.items.length !== 100) throw new Error('cached GET returned ' + reply.items.length + ' items');
            };
            // 50 a batch: a cache hit takes well under a millisecond, and the engines coarsen
            // performance.now(), so a batch of 10 measured it in tenths of a millisecond.
            const [nativeCachedMs, proxiedCachedMs] = await compare(get, 50, cachedNative, cachedProxied);
            return [nativeMs, proxiedMs, nativeCachedMs, proxiedCachedMs];
            """, arguments: ["native": .string(server.url("/echo").absoluteString),
                             "proxied": .string(server.url("/echo/proxied").absoluteString),
                             "cachedNative": .string(server.url("/cached").absoluteString),
                             "cachedProxied": .string(server.url("/cached/proxied").absoluteString),
                             "batches": .number(Double(batches))])
        guard let values = result.arrayValue?.compactMap(\.numberValue), values.count == 4, values[0] > 0, values[2] > 0 else {
            throw HybridError.engine(.native(domain: "bench", code: 1, message: "unexpected result \(result.jsonText)"))
        }
        // Every proxied request, and only those, went through the proxy.
        guard proxied.value == (batches + 1) * 10 else {
            throw HybridError.engine(.native(domain: "bench", code: 2, message: "\(proxied.value) proxied requests, expected \((batches + 1) * 10)"))
        }
        // Each side's cache answered every timed GET: the server saw each URL once.
        guard served.value == 2 else {
            throw HybridError.engine(.native(domain: "bench", code: 3, message: "the cached GET reached the server \(served.value) times, expected 2"))
        }
        if ProcessInfo.processInfo.environment["HYBRID_BENCH_VERBOSE"] != nil { print(result.jsonText) }
        return BenchReport(values: [
            ("native_fetch_ms", values[0]), ("proxy_fetch_ms", values[1]), ("proxy_ratio", values[1] / values[0]),
            ("proxy_native_ms", proxied.medianDuration * 1000),
            ("native_cached_ms", values[2]), ("proxy_cached_ms", values[3]), ("cached_get_ratio", values[3] / values[2]),
            ("proxy_cached_native_ms", hits.medianDuration * 1000),
        ])
    }

    /// Counts the proxy's records and keeps their durations (its hook runs off the main thread).
    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var durations: [Double] = []
        func add(_ duration: Double) { lock.withLock { durations.append(duration) } }
        var value: Int { lock.withLock { durations.count } }
        var medianDuration: Double {
            lock.withLock { durations.isEmpty ? 0 : durations.sorted()[durations.count / 2] }
        }
    }
}
#endif
