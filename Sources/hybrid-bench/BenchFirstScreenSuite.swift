#if os(Linux)
import Foundation
import HybridCore
import HybridCrypto
import HybridServer
import HybridFixtures

/// `hybrid bench firstscreen`: what a user sees — from "the app asks to open URL" to the page's
/// first contentful paint — for a realistic page: a 60-file package whose content appears only
/// once its JSON data request has answered, the data and the network pages 40 ms away.
enum FirstScreenBenchSuite: BenchSuite {
    static let name = "firstscreen"
    static let keys = """
        The bench-offline page (HTML, 15 CSS, 24 JS, 20 PNG) made a single-page app: the body is empty
        until its last script has fetched /api/data.json (40 ms added) and rendered 100 paragraphs and
        the images from it. Every figure is the median of N opens (default 11), the cases taking turns in a rotating order after one untimed open each,
        timed from before the view is asked for to the page's first contentful paint (the paint
        entry's time on the page's clock, performance.timeOrigin + startTime, against the app's
        wall clock on the same machine):
        cold_network_ms         a new view; page files (40 ms each) and data from the network
        pooled_network_ms       a warm view from a WebViewPool; page and data from the network
        pooled_package_ms       a warm view; page from the installed offline package, data from the network
        pooled_package_prefetch_ms  the same, with the data request started natively at the open
                                (DataPrefetcher) and the page's own fetch answered from it: the app's
                                open (WebViewPool.open / HybridWebView.open) pushes the response into
                                the document as soon as the document and the response both exist
        pooled_package_prefetch_bridge_ms  the same prefetch taken over the bridge only (the page
                                asks, after the bridge's handshake): what the push saves
        speedup                 cold_network_ms / pooled_package_prefetch_ms (goal >= 10)
        speedup_pooled_package  cold_network_ms / pooled_package_ms
        prerendered_ms          the prefetching pooled package open of a URL prerendered beforehand
                                (WebViewPool.prerender, then WebViewPool.open): from the open to the
                                first frame of the shown page: in the page, the first animation frame
                                after activation, once its rendering has run (a message posted from
                                its requestAnimationFrame callback), on the page's clock like the paint marks
        prerendered_speedup     cold_network_ms / prerendered_ms (goal >= 30)
        swr_ms                  the prefetching pooled package open with stale-while-revalidate (a rule's
                                PrefetchKeep): the page renders the response kept from the previous open
                                (hybrid.prefetched(key, {stale: true})) while the data request (40 ms)
                                refreshes it; checked to render the kept copy, then to get the fresh one
                                (one data request per open)
        swr_speedup             cold_network_ms / swr_ms (goal >= 15)
        swr_stage_script_ms, swr_stage_data_ms  its app script started; the kept data in hand (medians, ms from the open)
        prerender_cost_ms       CPU time (user + system, this process and every engine process) from
                                the prerender's start to its page rendered with its data, before the open
        prerender_rss_mb        resident memory the prerender added over the same span (the sum of every
                                process's RSS, so pages shared between processes count more than once)
        Where pooled_package_ms goes, then pooled_package_prefetch_ms (prefetch_stage_*; medians, ms from the open;
        prefetch_bridge_stage_data_ms for the bridge-only prefetch):
        stage_view_ms           the pool handed out the view
        stage_commit_ms         the engine committed the navigation
        stage_script_ms         the page's app script started (all 24 scripts and 15 sheets before it)
        stage_data_ms           the data request answered (its fetch began when the script started)
        stage_fcp_ms            first contentful paint (= pooled_package_ms)
        aa_noise_ratio          the A/A noise floor: pooled_package_ms measured a second time in every round, over
                                the first (1 is no noise); a difference between cases within it is no difference
        """

    static let id = "firstscreen"
    static let scheme = "bench-app"
    static let dataDelay = 40

    @MainActor static func run(_ options: BenchOptions) async throws -> BenchReport {
        let opens = options.iterations ?? 11
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hk-bench-firstscreen-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try LoopbackServer()
        defer { server.stop() }
        // The package's real origin is the data server's, as an app's API host would be: its
        // Content-Security-Policy then lets the page reach the data.
        let origin = server.url("/page/").absoluteString
        let site = root.appendingPathComponent("site"), repository = root.appendingPathComponent("repo")
        try BenchOfflinePage.write(page(), to: site)
        try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: true)
        let signer = try Ed25519Signer.generate()
        _ = try PackageWriter(repository: repository, platform: .native, signer: signer)
            .pack(site, options: .init(id: id, version: 1, origin: origin))

        var pageFiles = StaticFiles(root: site, prefix: "/page")
        pageFiles.cacheControl = "no-store"
        let pages = pageFiles
        server.route("/page") { pages.respond(to: $0).delayed(by: .milliseconds(dataDelay)) }
        var repositoryFiles = StaticFiles(root: repository, prefix: "/repo")
        repositoryFiles.gzip = false
        let repositoryRoute = repositoryFiles
        server.route("/repo") { repositoryRoute.respond(to: $0) }
        let dataRequests = Locked<[String: Int]>([:])
        server.route("/api/data.json") { request in
            dataRequests.mutate { $0[request.query("item") ?? "", default: 0] += 1 }
            var response = ServerResponse.json(FirstScreenData(item: request.query("item") ?? "", paragraphs: 100))
            response.headers.add("Access-Control-Allow-Origin", "*")
            // The stale-while-revalidate page's data may be kept (and is revalidated every time).
            response.headers.add("Cache-Control", request.query("item") == "swr" ? "no-cache" : "no-store")
            return response.delayed(by: .milliseconds(dataDelay))
        }

        let store = PackageStore(root: root.appendingPathComponent("store"))
        let installer = PackageInstaller(store: store, platform: .native, verifier: try Ed25519Verifier(publicKey: signer.publicKey))
        _ = try await PackageUpdater(repository: server.url("/repo/"), installer: installer).update(id)
        try installer.markLoaded(id)

        let provider = try options.makeProvider()
        let packageScheme = provider.capabilities.contains(.customSchemeNavigation) ? scheme : "http"
        var packaged = HybridWebViewConfiguration()
        packaged.package = PackageBinding(installer: installer, id: id, scheme: packageScheme)
        // The data the page fetches, as a prefetch rule: its URL from the page's own query. The
        // page asks with its default credentials: cookies only when the API is its own origin.
        let packagePattern = try ConfigURLPattern("\(packageScheme)://127.0.0.1:\(server.url("/").port ?? 0)/page/*")
        let prefetcher = try DataPrefetcher(rules: [PrefetchRule(
            pages: packagePattern, key: "data", url: server.url("/api/data.json").absoluteString + "?item={query.item}",
            withCookies: packageScheme == "http")], jar: CookieJar())
        // The same data, kept between opens: always stale (maxAge 0), so every open also refreshes it.
        let swrPrefetcher = try DataPrefetcher(rules: [PrefetchRule(
            pages: packagePattern, key: "data", url: server.url("/api/data.json").absoluteString + "?item={query.item}",
            withCookies: packageScheme == "http", keep: PrefetchKeep(maxAge: 0, maxStale: 3600))], jar: CookieJar(),
            keepStore: ProxyCache.Configuration(directory: root.appendingPathComponent("keep")))
        var keeping = packaged
        keeping.modules.append(PrefetchModule(prefetcher: swrPrefetcher, allowedOrigins: [.any]))
        keeping.engine.userScripts.append(swrPrefetcher.userScript)
        keeping.prefetcher = swrPrefetcher
        var prefetching = packaged
        prefetching.modules.append(PrefetchModule(prefetcher: prefetcher, allowedOrigins: [.any]))
        prefetching.engine.userScripts.append(prefetcher.userScript)
        prefetching.prefetcher = prefetcher
        let networkPool = WebViewPool(provider: provider, policy: WebViewPoolPolicy(capacity: 1))
        let packagePool = WebViewPool(provider: provider, configuration: packaged.fitted(to: provider.capabilities),
                                      policy: WebViewPoolPolicy(capacity: 1))
        let prefetchPool = WebViewPool(provider: provider, configuration: prefetching.fitted(to: provider.capabilities),
                                       policy: WebViewPoolPolicy(capacity: 1))
        // Prerenders of the package (and, on an engine that serves it over http, its origin).
        let prerenderPool = WebViewPool(provider: provider, configuration: prefetching.fitted(to: provider.capabilities),
                                        policy: WebViewPoolPolicy(capacity: 1))
        prerenderPool.prerenderPolicy = PrerenderPolicy(allowedOrigins: [OriginPattern(BridgeOrigin(url: server.url("/"))!.description)])
        let swrPool = WebViewPool(provider: provider, configuration: keeping.fitted(to: provider.capabilities),
                                  policy: WebViewPoolPolicy(capacity: 1))
        let pools = [networkPool, packagePool, prefetchPool, prerenderPool, swrPool]
        for pool in pools { pool.refillDelay = 3600 }   // refilled between timings only
        defer { for pool in pools { pool.drain() } }

        let api = server.url("/api/data.json").absoluteString
        func entry(_ base: String, _ open: String) -> URL {
            var components = URLComponents(string: base + "index.html")!
            components.queryItems = [URLQueryItem(name: "api", value: api), URLQueryItem(name: "item", value: open)]
            return components.url!
        }
        let networkBase = origin
        let packageBase = packageScheme == "http" ? origin : origin.replacingOccurrences(of: "http:", with: scheme + ":")

        // One-time costs (libraries, processes, connections) out of the way on every path.
        _ = try await open(cold: provider, entry(networkBase, "warmup"))
        var bridgedData: [Double] = []
        var stages: [[Double]] = Array(repeating: [], count: 5), prefetchStages: [[Double]] = Array(repeating: [], count: 5)
        /// A prefetched open, checked (not timed) to have made exactly one data request.
        func prefetchedOpen(_ name: String, pushing: Bool) async throws -> OpenTiming {
            await prefetchPool.prewarm()
            try await settle()
            let timing = try await open(pooled: prefetchPool, entry(packageBase, name), prefetching: prefetcher, pushing: pushing)
            guard dataRequests.value[name] == 1, prefetcher.pending == 0 else {
                throw HybridError.engine(.native(domain: "bench firstscreen", code: 3, message:
                    "open \(name): \(dataRequests.value[name] ?? 0) data requests, \(prefetcher.pending) untaken"))
            }
            return timing
        }
        /// A stale-while-revalidate open of the one kept page: timed to its first contentful paint,
        /// then (untimed) checked to have rendered the kept copy and received the network's, with one
        /// data request. The first (untimed) open has nothing kept yet: it keeps the response.
        var swrStages: [[Double]] = [[], []]
        func swrOpen(_ round: Int) async throws -> Double {
            await swrPool.prewarm()
            try await settle()
            let url = URL(string: entry(packageBase, "swr").absoluteString + "&swr=1")!, before = dataRequests.value["swr"] ?? 0
            let began = Date()
            swrPrefetcher.start(for: url)
            let view = try await swrPool.dequeue()
            defer { swrPool.enqueue(view) }
            let timing = try await measure(view, url, began: began, pushing: true)
            try await view.engine.waitUntil("window.__firstScreen.fresh > 0", timeout: 30)
            let stale = try await view.engine.evaluate("window.__firstScreen.stale === true")
            guard dataRequests.value["swr"] == before + 1, swrPrefetcher.pending == 0, round < 0 || stale == true else {
                throw HybridError.engine(.native(domain: "bench firstscreen", code: 6, message:
                    "swr \(round): \((dataRequests.value["swr"] ?? 0) - before) data requests, \(swrPrefetcher.pending) untaken, stale \(stale)"))
            }
            if round >= 0 { swrStages[0].append(timing.script); swrStages[1].append(timing.data) }
            return timing.fcp
        }
        // The six ways take turns in a rotating order; the pooled package open is also measured twice
        // a round, for the run's A/A noise floor.
        var prerenderCosts: [Double] = [], prerenderMemory: [Double] = []
        var twin = 0
        let turns = BenchTurns(rounds: opens, settle: settle, noiseSide: "package")
        let samples = try await turns.run([
            .init(name: "cold") { try await open(cold: provider, entry(networkBase, "cold-\($0)")).fcp },
            .init(name: "network") { round in
                await networkPool.prewarm()
                try await settle()
                return try await open(pooled: networkPool, entry(networkBase, "net-\(round)")).fcp
            },
            .init(name: "prefetched") { round in
                let timing = try await prefetchedOpen("pre-\(round)", pushing: true)
                if round >= 0 { for (index, value) in timing.stages.enumerated() { prefetchStages[index].append(value) } }
                return timing.fcp
            },
            .init(name: "prerendered") { round in
                let url = entry(packageBase, "prerender-\(round)")
                let before = BenchProcessUsage.sample()
                let hidden = try await prerenderPool.prerender(url)
                try await hidden.engine.waitUntil("window.__firstScreen && window.__firstScreen.rendered === 100", timeout: 30)
                let after = BenchProcessUsage.sample()
                if round >= 0 {
                    prerenderCosts.append(after.cpuMs - before.cpuMs)
                    prerenderMemory.append(after.rssMB - before.rssMB)
                }
                try await settle()
                let ms = try await open(prerendered: prerenderPool, url)
                guard dataRequests.value["prerender-\(round)"] == 1 else {
                    throw HybridError.engine(.native(domain: "bench firstscreen", code: 4, message:
                        "prerender \(round): \(dataRequests.value["prerender-\(round)"] ?? 0) data requests"))
                }
                return ms
            },
            .init(name: "swr") { round in try await swrOpen(round) },
            .init(name: "bridged") { round in
                let timing = try await prefetchedOpen("bridge-\(round)", pushing: false)
                if round >= 0 { bridgedData.append(timing.data) }
                return timing.fcp
            },
            .init(name: "package") { round in
                await packagePool.prewarm()
                try await settle()
                twin += 1
                let timing = try await open(pooled: packagePool, entry(packageBase, "pkg-\(round)-\(twin)"))
                if round >= 0 { for (index, value) in timing.stages.enumerated() { stages[index].append(value) } }
                return timing.fcp
            },
        ])
        let cold = samples["cold"], pooledNetwork = samples["network"], prefetched = samples["prefetched"]
        let bridged = samples["bridged"], pooledPackage = samples["package"], prerenderedMs = benchMedian(samples["prerendered"])
        let swrMs = benchMedian(samples["swr"])
        let coldMs = benchMedian(cold), packageMs = benchMedian(pooledPackage), prefetchMs = benchMedian(prefetched)
        let names = ["view", "commit", "script", "data", "fcp"]
        var values: [(String, Double)] = [
            ("cold_network_ms", coldMs), ("pooled_network_ms", benchMedian(pooledNetwork)), ("pooled_package_ms", packageMs),
            ("pooled_package_prefetch_ms", prefetchMs), ("pooled_package_prefetch_bridge_ms", benchMedian(bridged)),
            ("speedup", coldMs / prefetchMs), ("speedup_pooled_package", coldMs / packageMs),
            ("prerendered_ms", prerenderedMs), ("prerendered_speedup", coldMs / prerenderedMs),
            ("prerender_cost_ms", benchMedian(prerenderCosts)), ("prerender_rss_mb", benchMedian(prerenderMemory)),
            ("swr_ms", swrMs), ("swr_speedup", coldMs / swrMs),
            ("swr_stage_script_ms", benchMedian(swrStages[0])), ("swr_stage_data_ms", benchMedian(swrStages[1])),
        ]
        values += names.indices.map { ("stage_\(names[$0])_ms", benchMedian(stages[$0])) }
        values += names.indices.map { ("prefetch_stage_\(names[$0])_ms", benchMedian(prefetchStages[$0])) }
        values += [("prefetch_bridge_stage_data_ms", benchMedian(bridgedData)), ("opens", Double(opens)),
                   ("aa_noise_ratio", samples.noiseRatio ?? 0)]
        return BenchReport(values: values)
    }

    /// Milliseconds from the open to each stage of one page open.
    struct OpenTiming {
        var view = 0.0, commit = 0.0, script = 0.0, data = 0.0, fcp = 0.0
        var stages: [Double] { [view, commit, script, data, fcp] }
    }

    @MainActor private static func open(cold provider: any WebEngineProvider, _ url: URL) async throws -> OpenTiming {
        let began = Date()
        let view = try HybridWebView(provider: provider)
        defer { view.close() }
        return try await measure(view, url, began: began)
    }

    /// A pooled open; with `prefetcher`, its data request starts first, as the app's open would,
    /// and `pushing` opens the page as the app's open does (``HybridWebView/open(_:)``: the response
    /// pushed into the document); without it the page takes the response over the bridge.
    @MainActor private static func open(pooled pool: WebViewPool, _ url: URL, prefetching prefetcher: DataPrefetcher? = nil,
                                        pushing: Bool = false) async throws -> OpenTiming {
        let began = Date()
        if let prefetcher, prefetcher.start(for: url).isEmpty {
            throw HybridError.engine(.native(domain: "bench firstscreen", code: 2, message: "no prefetch rule matches \(url)"))
        }
        let view = try await pool.dequeue()
        defer { pool.enqueue(view) }
        return try await measure(view, url, began: began, pushing: pushing)
    }

    /// Opens `url`, prerendered beforehand, from `pool`: milliseconds from the open to the first
    /// frame of the shown page (the page's first animation frame after activation, once rendered),
    /// checked to be the prerendered document, rendered, and no longer prerendering.
    @MainActor private static func open(prerendered pool: WebViewPool, _ url: URL) async throws -> Double {
        let activations = pool.prerenderActivations
        let began = Date()
        let view = try await pool.open(url)
        defer { view.close() }
        let frame = try await view.engine.callAsync("""
            return await new Promise(r => requestAnimationFrame(() => {
              const channel = new MessageChannel();
              channel.port1.onmessage = () => r(performance.timeOrigin + performance.now());
              channel.port2.postMessage(0);
            }));
            """)
        let shown = try await view.engine.evaluate("document.prerendering === false && window.__firstScreen.rendered === 100")
        guard pool.prerenderActivations == activations + 1, shown == true, let at = frame.numberValue else {
            throw HybridError.engine(.native(domain: "bench firstscreen", code: 5, message: "\(url) was not shown from its prerender"))
        }
        return at - began.timeIntervalSince1970 * 1000
    }

    /// Loads `url` in `view` and reads the page's own marks once its content has painted. The one
    /// timing of the harness on the wall clock (`Date`, not ``BenchClock``): the page's marks are on
    /// its own epoch clock (`performance.timeOrigin`), the only clock both processes share.
    @MainActor private static func measure(_ view: HybridWebView, _ url: URL, began: Date, pushing: Bool = false) async throws -> OpenTiming {
        var timing = OpenTiming()
        let since = { (date: Date) in date.timeIntervalSince(began) * 1000 }
        timing.view = since(Date())
        var committed: Date?
        let token = view.engine.observe { event in
            if case .loadCommitted = event, committed == nil { committed = Date() }
        }
        defer { token.cancel() }
        try await view.engine.waitForLoad(of: url, timeout: BenchOptions.loadTimeout) { pushing ? view.open(url) : view.load(url) }
        try await view.engine.waitUntil("window.__firstScreen && window.__firstScreen.fcp > 0", timeout: 30)
        let marks = try await view.engine.evaluate("JSON.stringify(window.__firstScreen)")
        guard let text = marks.stringValue, let page = try? JSONDecoder().decode(PageMarks.self, from: Data(text.utf8)),
              page.rendered == 100 else {
            throw HybridError.engine(.native(domain: "bench firstscreen", code: 1, message: "\(url) did not render its data: \(marks.jsonText)"))
        }
        let epoch = began.timeIntervalSince1970 * 1000
        timing.commit = committed.map(since) ?? 0
        timing.script = page.script - epoch
        timing.data = page.data - epoch
        timing.fcp = page.fcp - epoch
        return timing
    }

    /// What the page records, in milliseconds since 1970 on its own clock.
    struct PageMarks: Decodable {
        var script: Double
        var data: Double
        var fcp: Double
        var rendered: Int
    }

    /// The bench-offline page as a single-page app: no content until the data is in.
    static func page() -> [String: Data] {
        var files = BenchOfflinePage.files(version: 1)
        guard let html = files["index.html"].map({ String(decoding: $0, as: UTF8.self) }),
              let headEnd = html.range(of: "</head>") else { return files }
        // Keep the head (every style sheet and script), drop the static body, add the app script.
        let images = (0..<BenchOfflinePage.images).map { "img/i\($0 < 10 ? "0" : "")\($0).png" }
        files["index.html"] = Data((html[..<headEnd.lowerBound] + """
            <script src="app.js"></script></head><body><div id="app"></div></body></html>
            """).utf8)
        files["app.js"] = Data("""
            (function () {
              var marks = window.__firstScreen = { script: performance.timeOrigin + performance.now(), data: 0, fcp: 0, rendered: 0 };
              var painted = [];
              new PerformanceObserver(function (list) {
                list.getEntries().forEach(function (entry) {
                  if (entry.name === 'first-contentful-paint') marks.fcp = performance.timeOrigin + entry.startTime;
                });
                if (marks.fcp) painted.splice(0).forEach(function (then) { then(); });
              }).observe({ type: 'paint', buffered: true });
              var query = new URLSearchParams(location.search);
              var show = function (data) {
                  if (!marks.data) marks.data = performance.timeOrigin + performance.now();
                  var render = function () {
                    var html = '<h1>' + data.title + '</h1>';
                    data.paragraphs.forEach(function (text, i) { html += '<p class="s' + (i % 15) + '-' + i + '">' + text + '</p>'; });
                    \(images.map { "html += '<img src=\"\($0)\" width=\"48\" height=\"48\" alt=\"\">';" }.joined(separator: " "))
                    document.getElementById('app').innerHTML = html;
                    marks.rendered = data.paragraphs.length;
                  };
                  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', render); else render();
              };
              var json = function (r) { return r.json(); };
              if (query.get('swr')) {
                // Stale-while-revalidate: the kept data at once, the fresh data when it arrives and
                // the kept one is on screen (a page gains nothing from replacing it before its paint).
                hybrid.prefetched('data', { stale: true }).then(function (got) {
                  marks.stale = got.stale;
                  if (got.data) got.data.json().then(show);
                  // `fresh` is null when the network's response came first (then it is `data`).
                  var freshDone = function () { marks.fresh = performance.timeOrigin + performance.now(); };
                  var afterPaint = function (then) { if (marks.fcp || !got.data) then(); else painted.push(then); };
                  got.fresh.then(function (next) {
                    if (!next) return freshDone();
                    next.data.json().then(function (data) { afterPaint(function () { show(data); freshDone(); }); });
                  });
                });
              } else {
                fetch(query.get('api') + '?item=' + encodeURIComponent(query.get('item') || '')).then(json).then(show);
              }
            })();
            """.utf8)
        return files
    }

    /// Lets closed views' processes exit and the pool's warm-up finish before the next timing.
    @MainActor private static func settle() async throws {
        try await Task.sleep(nanoseconds: 300_000_000)
    }

}

/// What `/api/data.json` answers: the first screen's data.
struct FirstScreenData: Codable, Sendable {
    var title: String
    var paragraphs: [String]

    init(item: String, paragraphs count: Int) {
        title = "Item \(item)"
        paragraphs = (0..<count).map { "Paragraph \($0) of item \(item)." }
    }
}
#endif
