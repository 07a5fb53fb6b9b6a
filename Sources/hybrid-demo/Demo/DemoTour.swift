#if os(Linux)
import Foundation
import HybridCore
import HybridGTK

/// The demo app: the containers the tour's pages open in, made the way an app makes them —
/// offline package, bridge modules, cookie sync, request proxy, navigation policy, a warm
/// pool — and the app's delegate (dialogs, payment hand-off, white screens). It walks the tour
/// page by page (``DemoTour+Steps``) and collects each page's report.
@MainActor
final class DemoTour: DemoHost, HybridWebViewDelegate {
    var state: DemoState
    private(set) var results: [DemoResult] = []
    let publisher: DemoPublisher
    let origin: DemoOrigin
    let out: URL
    let verbose: Bool
    let provider: GTKEngineProvider
    /// The app's cookie jar, the source of truth the engine is kept in step with.
    let jar = CookieJar()
    /// Every request the proxy carried, as the app's observer saw it.
    let proxied = ProxyLog()
    var pool: WebViewPool?
    /// Tap to first contentful paint of the cold open, for the pooled-reopen row.
    var coldFirstPaintMs: Double?
    /// The container showing the tour now.
    var view: HybridWebView?
    var dialogs: [String] = []
    private var reports: [String: DemoPageReport] = [:]
    private var configuration = HybridWebViewConfiguration()

    init(publisher: DemoPublisher, origin: DemoOrigin, out: URL, verbose: Bool) throws {
        self.publisher = publisher
        self.origin = origin
        self.out = out
        self.verbose = verbose
        state = DemoState(origin: origin.origin)
        provider = try GTKEngineProvider(session: .ephemeral)
    }

    /// The configuration every container of the demo is made with (and the pool makes its views with).
    func makeConfiguration() async throws -> HybridWebViewConfiguration {
        let package = OriginPattern(stringLiteral: "\(DemoPublisher.scheme)://demo.hybridkit.invalid")
        let origins = [package] + origin.origins
        // The package's pages (an origin no server lists) reach the demo's own API hosts: the app
        // trusts those hosts explicitly, so the proxy's CORS check does not apply to them.
        let policy = try ProxyPolicy(requests: origin.origins.map { "\($0)/*" }, pages: ["\(package)/*"],
                                     trustedHosts: origin.origins.map { "\($0)" })
        let log = proxied
        let proxy = RequestProxy(policy: policy, jar: jar) { record in log.append(record) }
        let storage = publisher.work.appendingPathComponent("storage", isDirectory: true)
        var configuration = HybridWebViewConfiguration(
            engine: EngineConfiguration(viewportSize: ViewportSize(width: 1024, height: 768)),
            modules: [
                DeviceModule(appName: "HybridKit demo", appVersion: BridgeRouter.version, allowedOrigins: origins),
                StorageModule(store: BridgeKeyValueStore(directory: storage), allowedOrigins: origins),
                ProxyModule(proxy: proxy, allowedOrigins: [package]),
                DemoModule(allowedOrigins: origins, host: self),
            ])
        if let script = ProxyModule.userScript(policy: policy) { configuration.engine.userScripts.append(script) }
        let sync = CookieSync(jar: jar, store: provider.cookieStore)
        await sync.start()
        configuration.cookieSync = sync
        configuration.package = publisher.binding
        configuration.navigation = NavigationPolicy(interceptedSchemes: ["demoapp"])
        configuration.navigationModuleOrigins = origins
        return configuration
    }

    /// Opens the first container cold (measured), then fills the pool for the pooled reopen.
    func start() async throws -> Double {
        configuration = try await makeConfiguration()
        let started = Date()
        let view = try HybridWebView(provider: provider, configuration: configuration)
        show(view)
        guard await visit("pool") != nil else { throw DemoError("the first page did not report: \(view.state)") }
        let coldMs = Date().timeIntervalSince(started) * 1000
        coldFirstPaintMs = await firstContentfulPaint(since: started)
        let pool = WebViewPool(provider: provider, configuration: configuration, policy: WebViewPoolPolicy(capacity: 1))
        await pool.prewarm()
        self.pool = pool
        return coldMs
    }

    func show(_ view: HybridWebView) {
        view.delegate = self
        if verbose { view.bridge.router.logger = { print("[bridge] \($0)") } }
        self.view = view
    }

    func close() {
        view?.close()
        pool?.drain()
    }

    // MARK: Pages and reports

    /// Loads `url` (default `pages/FEATURE.html` of the package) and waits for FEATURE's report.
    func visit(_ feature: String, url: URL? = nil, timeout: Double = 20) async -> DemoPageReport? {
        reports[feature] = nil
        view?.load(url ?? DemoPublisher.url("pages/\(feature).html"))
        return await report(feature, timeout: timeout)
    }

    /// FEATURE's next report, or `nil` after `timeout` seconds.
    func report(_ feature: String, timeout: Double = 20) async -> DemoPageReport? {
        let deadline = Date().addingTimeInterval(timeout)
        while reports[feature] == nil, Date() < deadline {
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        return reports.removeValue(forKey: feature)
    }

    /// Records a step's row, printing it as it completes.
    func record(_ feature: String, _ title: String, _ report: DemoPageReport?, ok: Bool = true, figure: String? = nil,
                details: [String: JSONValue] = [:]) {
        var merged = report?.details?.objectValue ?? [:]
        merged.merge(details) { _, native in native }
        let passed = (report?.ok ?? false) && ok
        let text = figure ?? report?.figure ?? "the page did not report"
        results.append(DemoResult(feature: feature, title: title, ok: passed, figure: report == nil ? "no report from the page" : text,
                                  details: merged.isEmpty ? nil : .object(merged)))
        FileHandle.standardError.write(Data("demo: \(passed ? "ok    " : "FAILED") \(title)\n".utf8))
    }

    // MARK: DemoHost

    func pageReported(_ report: DemoPageReport) {
        if verbose { print("[demo] \(report.feature): \(report.ok ? "ok" : "FAILED") \(report.figure)") }
        reports[report.feature] = report
    }

    func emit(_ name: String, count: Int) -> Int {
        guard let view else { return 0 }
        return (1...max(1, min(count, 100))).filter { n in (try? view.bridge.emit(name, ["n": n])) == true }.count
    }

    func crash() {
        state.crashes += 1
        state.crashedAt = (Date().timeIntervalSince1970 * 1000).rounded()
        let engine = view?.engine
        // After the call's reply has gone out: the page asked for this.
        Task { @MainActor in
            try? await Task.sleep(nanoseconds: 150_000_000)
            engine?.terminateContentProcess()
        }
    }

    func snapshot() async throws -> DemoSnapshot {
        guard let view else { throw DemoError("no view") }
        let png = try await view.snapshot()
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try png.write(to: out.appendingPathComponent("canvas-snapshot.png"))
        let size = Self.pngSize(png)
        return DemoSnapshot(width: size?.width ?? 0, height: size?.height ?? 0, bytes: png.count)
    }

    // MARK: HybridWebViewDelegate (the app's side)

    func webView(_ webView: HybridWebView, runDialog completion: ScriptDialogCompletion) {
        dialogs.append(completion.dialog.kind.rawValue)
        switch completion.dialog.kind {
        case .prompt: completion.complete(.accepted(text: "HybridKit"))
        case .alert, .confirm: completion.complete(.accepted())
        case .beforeUnload: completion.completeWithSafeDefault()
        }
    }

    func webView(_ webView: HybridWebView, openExternal navigation: ExternalNavigation) {
        state.external = navigation.url.absoluteString
    }

    func webView(_ webView: HybridWebView, didDetectWhiteScreen event: WhiteScreenEvent) {
        state.whiteScreens.append(event.reason.code)
    }

    func webView(_ webView: HybridWebView, didBlockNavigation navigation: BlockedNavigation) {
        if verbose { print("[policy] blocked \(navigation.url): \(navigation.reason)") }
    }
}

/// The proxy's records, appended from its observer (any thread) and read by the tour.
final class ProxyLog: @unchecked Sendable {
    private let lock = NSLock()
    private var records: [ProxyRecord] = []

    func append(_ record: ProxyRecord) { lock.withLock { records.append(record) } }
    var all: [ProxyRecord] { lock.withLock { records } }
}

extension DemoTour {
    /// A PNG's width and height, from its IHDR chunk.
    nonisolated static func pngSize(_ data: Data) -> (width: Int, height: Int)? {
        guard data.count >= 24, data.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return nil }
        let bytes = [UInt8](data.prefix(24))
        func int(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (int(16), int(20))
    }
}
#endif
