#if os(Linux)
import Foundation
import HybridCore
import HybridBlink
import HybridGTK

/// What `hybrid run` was asked to do.
struct RunOptions: Sendable {
    enum Until: String, Sendable { case load, done }
    /// The engine the page opens on (`--engine`).
    enum Engine: String, Sendable { case webkit, blink }
    var target: String
    var engine: Engine = .webkit
    var entry = "index.html"
    var screenshot: URL?
    var report: URL?
    var timeout: Double = 30
    var allow: [String] = []
    var verbose = false
    var until: Until = .load
    var viewport = ViewportSize(width: 1024, height: 768)
    /// Show the window shell (header bar, progress) and run until it is closed.
    var windowed = false
    /// Cookies (Netscape cookies.txt) put into the engine's store before the page loads.
    var cookies: [Cookie] = []
}

/// How a run ended; the exit code follows test-runner conventions (0 ok, 1 failed, 2 timeout/crash).
struct RunOutcome: Sendable {
    var exitCode: Int32
    var summary: String
    var details: JSONValue?
    var url: String?
    var title: String?
}

/// One container run: a view with the bridge, the page, the `test` module, a screenshot.
@MainActor
final class RunSession: WebEngineDelegate {
    static let localScheme = "hybrid-app"
    /// Where Blink serves a directory target: it cannot navigate to a custom scheme, so the
    /// directory is served at an https origin through Fetch interception (a reserved TLD, never
    /// a real site).
    static let blinkLocalOrigin = "https://local.hybrid-run.invalid"
    private let options: RunOptions
    private var finished: CheckedContinuation<RunOutcome, Never>?
    private var outcome: RunOutcome?
    private var engine: (any WebEngine)?
    private var host: BridgeHost?
    private var token: ObservationToken?
    private var shell: WindowShell?

    init(options: RunOptions) { self.options = options }

    /// The URL to open and, for a directory, the handler that serves it.
    private func resolveTarget() throws -> (URL, [String: any URLSchemeHandler]) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: options.target, isDirectory: &isDirectory), isDirectory.boolValue {
            let root = URL(fileURLWithPath: options.target, isDirectory: true)
            let url = URL(string: "\(localOrigin)/")!.appendingPathComponent(options.entry)
            let scheme = options.engine == .blink ? "https" : Self.localScheme
            return (url, [scheme: DirectorySchemeHandler(root: root)])
        }
        guard let url = URL(string: options.target), url.scheme != nil else {
            throw RunError("TARGET is neither a directory nor a URL: \(options.target)")
        }
        return (url, [:])
    }

    /// The origin a directory target is served at on the chosen engine.
    private var localOrigin: String {
        options.engine == .blink ? Self.blinkLocalOrigin : "\(Self.localScheme)://local"
    }

    func run() async throws -> RunOutcome {
        let (url, schemes) = try resolveTarget()
        let provider: any WebEngineProvider = switch options.engine {
        case .webkit: try GTKEngineProvider(session: .ephemeral)
        case .blink: try BlinkEngineProvider(session: .ephemeral)
        }
        var origins: [OriginPattern] = schemes.isEmpty ? [] : [OriginPattern(stringLiteral: localOrigin)]
        if let origin = BridgeOrigin(url: url), schemes.isEmpty { origins.append(.exact(origin)) }
        origins += options.allow.map { OriginPattern(stringLiteral: $0) }
        let test = TestModule(
            allowedOrigins: origins,
            onDone: { [weak self] done in
                self?.finish(RunOutcome(exitCode: done.ok ? 0 : 1, summary: done.ok ? "page reported ok" : "page reported failure", details: done.details))
            },
            onScreenshot: { [weak self] in try await self?.takeScreenshot() },
            onLog: { [weak self] log in if self?.options.verbose == true { print("[page \(log.level ?? "log")] \(log.message)") } })
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-run-storage-\(getpid())")
        defer { try? FileManager.default.removeItem(at: storage) }
        let modules: [any BridgeModule] = [
            DeviceModule(appName: "hybrid run", appVersion: BridgeRouter.version),
            StorageModule(store: BridgeKeyValueStore(directory: storage), allowedOrigins: origins),
            test,
        ]
        let host = BridgeHost(capabilities: provider.capabilities, modules: modules)
        if options.verbose {
            host.router.logger = { print("[bridge] \($0)") }
        }
        var configuration = EngineConfiguration(schemeHandlers: schemes, viewportSize: options.viewport)
        host.configure(&configuration)
        let engine = try provider.makeEngine(configuration)
        engine.delegate = self
        host.attach(engine)
        self.engine = engine
        self.host = host
        token = engine.observe { [weak self] event in self?.observe(event) }
        if options.windowed, let engine = engine as? GTKWebEngine {
            shell = WindowShell(engine: engine, size: options.viewport)
            shell?.onClose = { [weak self] in self?.finish(RunOutcome(exitCode: 0, summary: "window closed")) }
        }
        defer {
            shell?.close()
            engine.close()
        }

        for cookie in options.cookies { try await engine.cookieStore.setCookie(cookie) }
        engine.load(url)
        let timeout = Task { @MainActor [weak self] in
            guard self?.options.windowed == false || self?.options.until == .done else { return }
            try await Task.sleep(nanoseconds: UInt64(self?.options.timeout ?? 30) * 1_000_000_000)
            self?.finish(RunOutcome(exitCode: 2, summary: "timed out after \(Int(self?.options.timeout ?? 0)) s"))
        }
        defer { timeout.cancel() }
        var result = await withCheckedContinuation { continuation in
            if let outcome { continuation.resume(returning: outcome) } else { finished = continuation }
        }
        result.url = engine.url?.absoluteString
        result.title = engine.title
        if options.screenshot != nil, result.exitCode != 2 || engine.isAlive {
            do { _ = try await takeScreenshot() } catch { print("hybrid run: screenshot failed: \(error)") }
        }
        return result
    }

    private func finish(_ outcome: RunOutcome) {
        guard self.outcome == nil else { return }
        self.outcome = outcome
        finished?.resume(returning: outcome)
        finished = nil
    }

    @discardableResult
    private func takeScreenshot() async throws -> String? {
        guard let engine, let path = options.screenshot else { return nil }
        let png = try await engine.snapshot()
        try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        try png.write(to: path)
        return path.path
    }

    private func observe(_ event: EngineEvent) {
        if options.verbose { print("[engine] \(event)") }
        switch event {
        case .loadFinished where options.until == .load && !options.windowed:
            Task { @MainActor [weak self] in
                try? await Task.sleep(nanoseconds: 500_000_000)  // let first paint and scripts settle
                self?.finish(RunOutcome(exitCode: 0, summary: "loaded"))
            }
        case .loadFailed(let url, let message, let cancelled) where !cancelled:
            finish(RunOutcome(exitCode: 2, summary: "load of \(url?.absoluteString ?? "?") failed: \(message)"))
        case .contentProcessTerminated(let reason):
            finish(RunOutcome(exitCode: 2, summary: "web content process terminated (\(reason))"))
        default:
            break
        }
    }

    // MARK: WebEngineDelegate

    func engine(_ engine: any WebEngine, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        if let host, host.handleNavigation(action) { return .cancel }
        if options.verbose { print("[policy] allow \(action.type.rawValue) \(action.request.url.absoluteString)") }
        return .allow
    }

    func engine(_ engine: any WebEngine, decidePolicyFor response: NavigationResponse) async -> NavigationResponsePolicy {
        if response.isMainFrame, response.statusCode >= 400 {
            finish(RunOutcome(exitCode: 2, summary: "\(response.url.absoluteString) answered HTTP \(response.statusCode)"))
        }
        return response.canShowMIMEType ? .allow : .cancel
    }

    func engine(_ engine: any WebEngine, runScriptDialog completion: ScriptDialogCompletion) {
        if options.verbose { print("[dialog] \(completion.dialog.kind.rawValue): \(completion.dialog.message) → safe default") }
        completion.completeWithSafeDefault()
    }
}

struct RunError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
#endif
