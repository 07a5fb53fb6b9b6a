#if os(Linux)
import Foundation
import HybridCore
import HybridGTK

/// One container run: a ``HybridWebView`` with the bridge, the page, the `test` module, a screenshot.
@MainActor
final class RunSession: HybridWebViewDelegate {
    private let options: RunOptions
    private var finished: CheckedContinuation<RunOutcome, Never>?
    private var outcome: RunOutcome?
    private var view: HybridWebView?
    private var token: ObservationToken?
    private var shell: GTKWindowShell?
    private var integrityReport: PackageIntegrity.Report?
    private var health: RunHealth?
    private var watcher: RunWatcher?
    /// The change a reload under `--watch` answers, until its load finishes.
    private var reloading: RunWatcher.Change?
    /// The last style-sheet swap under `--watch`: a run the swapped page ends (its `done` can come
    /// from the new sheet's load, before the swap's answer) ends after the swap's line.
    private var swapping: Task<Void, Never>?

    init(options: RunOptions) { self.options = options }

    func run() async throws -> RunOutcome {
        let target = try RunTarget.resolve(options.target, entry: options.entry, store: options.store)
        let origins = target.origins + options.allow.map { OriginPattern(stringLiteral: $0) }
        let test = TestModule(
            allowedOrigins: origins,
            onDone: { [weak self] done in
                self?.pageDone(RunOutcome(exitCode: done.ok ? 0 : 1, summary: done.ok ? "page reported ok" : "page reported failure", details: done.details))
            },
            onScreenshot: { [weak self] in try await self?.takeScreenshot() },
            onLog: { [weak self] log in if self?.options.verbose == true { print("[page \(log.level ?? "log")] \(log.message)") } },
            onCrash: { [weak self] in
                let engine = self?.view?.engine
                // After the reply has gone out: the page asked for this.
                Task { @MainActor in
                    try? await Task.sleep(nanoseconds: 150_000_000)
                    engine?.terminateContentProcess()
                }
            })
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-run-storage-\(getpid())")
        defer { try? FileManager.default.removeItem(at: storage) }
        let modules: [any BridgeModule] = [
            DeviceModule(appName: "hybrid run", appVersion: BridgeRouter.version, allowedOrigins: origins),
            StorageModule(store: BridgeKeyValueStore(directory: storage), allowedOrigins: origins),
            test,
        ]
        // Under --watch the page's script errors are printed as they happen (a broken save shows at once).
        let health = options.report == nil && !options.watch ? nil : RunHealth(onScriptError: options.watch ? Self.printScriptError : nil)
        self.health = health
        let container = RunContainer(options: options, target: target, modules: modules, origins: origins,
                                     health: health?.recorder, providers: ProviderCache(inspect: options.inspect))
        let (view, decision) = try await container.make()
        if options.inspect { await announceInspector(container.providers, view: view) }
        if let config = options.config, let decision { print(config.describe(decision, verbose: options.verbose)) }
        view.delegate = self
        self.view = view
        if options.verbose { view.bridge.router.logger = { print("[bridge] \($0)") } }
        token = view.engine.observe { [weak self] event in self?.observe(event) }
        if options.windowed {
            shell = GTKWindowShell(view: view, size: options.viewport)
            shell?.onClose = { [weak self] in self?.finish(RunOutcome(exitCode: 0, summary: "window closed")) }
        }
        defer {
            watcher?.stop()
            shell?.close()
            view.close()
        }

        if container.cookiesGoToEngine(view) {
            for cookie in options.cookies { try await view.engine.cookieStore.setCookie(cookie) }
        }
        let url = url(for: target, in: view)
        if case .package = target.kind, let package = view.configuration.package {
            // As an app launches a package: its files checked (and repaired) before the page loads.
            let updater = options.repository.map { PackageUpdater(repository: $0, installer: package.installer) }
            let integrity = await view.launchPackage(url, repairingFrom: updater)
            integrityReport = integrity
            if let line = Self.describe(integrity, id: package.id, repository: options.repository, verbose: options.verbose) {
                print(line)
            }
        } else {
            view.open(url)
        }
        let timeout = Task { @MainActor [weak self] in
            guard self?.options.windowed == false || self?.options.until == .done else { return }
            try await Task.sleep(nanoseconds: UInt64((self?.options.timeout ?? 30) * 1e9))
            self?.finish(RunOutcome(exitCode: 2, summary: "timed out after \(Int(self?.options.timeout ?? 0)) s"))
        }
        defer { timeout.cancel() }
        var result = await withCheckedContinuation { continuation in
            if let outcome { continuation.resume(returning: outcome) } else { finished = continuation }
        }
        result.url = view.engine.url?.absoluteString
        result.title = view.engine.title
        // A page of its own (not a placeholder) sends its timing a moment after it painted.
        if let health, options.report != nil, result.exitCode == 0, view.engine.isAlive, let scheme = view.engine.url?.scheme, scheme != "about", scheme != "data" {
            await health.waitForTiming(seconds: 3)
        }
        if let health, options.report != nil, view.engine.isAlive { await health.waitForFoldedErrors() }
        result.integrity = integrityReport.map(Self.json)
        if options.screenshot != nil, result.exitCode != 2 || view.engine.isAlive {
            do { _ = try await takeScreenshot() } catch { print("hybrid run: screenshot failed: \(error)") }
        }
        // Closing ends the launch: the recorder hands over what it counted as dropped.
        view.close()
        result.health = health?.report()
        return result
    }

    /// Prints where the engine's inspector is, at once (a test or a person connects while the page runs).
    private func announceInspector(_ providers: ProviderCache, view: HybridWebView) async {
        let endpoint: URL?
        if let blink = providers.blink, view.engine.engineName == blink.engineName {
            endpoint = await RunInspector.blinkEndpoint(blink)
        } else {
            endpoint = options.webKitInspector
        }
        // Unbuffered: whoever connects reads the line while the page runs.
        FileHandle.standardOutput.write(Data("hybrid run: inspector at \(endpoint?.absoluteString ?? "(none: the engine did not open one)")\n".utf8))
    }

    /// The URL to load: the target's on the engine the view runs on; for a package the decision
    /// left out, the package's real origin (the page then comes from the network, the safe default).
    private func url(for target: RunTarget, in view: HybridWebView) -> URL {
        guard case .package(let id) = target.kind, view.configuration.package == nil,
              var components = URLComponents(url: target.url, resolvingAgainstBaseURL: false) else {
            return target.url(on: view.engine.capabilities)
        }
        components.scheme = "https"
        print("hybrid run: the config does not give this page the offline package '\(id)'; opening it from the network")
        return components.url ?? target.url
    }

    /// What launch integrity found, for the terminal: a line whenever a file was damaged; with
    /// `verbose`, also for an intact version.
    static func describe(_ report: PackageIntegrity.Report?, id: String, repository: URL?, verbose: Bool) -> String? {
        guard let report else { return "hybrid run: package '\(id)': launch integrity could not be checked; serving as installed" }
        let head = "hybrid run: package '\(id)' version \(report.version): \(report.depth.rawValue) integrity check, "
            + "\(report.checked) file(s), \(report.hashed) hashed"
        guard !report.isIntact else { return verbose ? head + ": intact" : nil }
        var parts = ["\(report.damaged.count) damaged (\(report.damaged.joined(separator: ", "))), removed from the store"]
        if !report.repaired.isEmpty { parts.append("repaired from \(repository?.absoluteString ?? "the repository"): \(report.repaired.joined(separator: ", "))") }
        if let version = report.rolledBackTo { parts.append("rolled back to version \(version), which is intact") }
        if !report.unrepaired.isEmpty {
            parts.append("not repaired (\(repository == nil ? "no --repo to fetch from" : "the repository did not give them back")), "
                         + "the network answers for: \(report.unrepaired.joined(separator: ", "))")
        }
        return head + ": " + parts.joined(separator: "; ")
    }

    /// The report's `integrity` object.
    static func json(_ report: PackageIntegrity.Report) -> JSONValue {
        func list(_ paths: [String]) -> JSONValue { .array(paths.map { .string($0) }) }
        return .object([
            "version": .number(Double(report.version)), "depth": .string(report.depth.rawValue),
            "checked": .number(Double(report.checked)), "hashed": .number(Double(report.hashed)),
            "damaged": list(report.damaged), "repaired": list(report.repaired), "unrepaired": list(report.unrepaired),
            "rolled_back_to": report.rolledBackTo.map { .number(Double($0)) } ?? .null,
        ])
    }

    /// The page said it is done: after a style-sheet swap still on its way has said so (the page is
    /// answering, so the swap ends too).
    private func pageDone(_ outcome: RunOutcome) {
        guard let swap = swapping else { return finish(outcome) }
        swapping = nil
        Task { @MainActor [weak self] in
            await swap.value
            self?.finish(outcome)
        }
    }

    private func finish(_ outcome: RunOutcome) {
        guard self.outcome == nil else { return }
        self.outcome = outcome
        finished?.resume(returning: outcome)
        finished = nil
    }

    @discardableResult
    private func takeScreenshot() async throws -> String? {
        guard let view, let path = options.screenshot else { return nil }
        let png = try await view.snapshot()
        try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        try png.write(to: path)
        return path.path
    }

    private func observe(_ event: EngineEvent) {
        if options.verbose { print("[engine] \(event)") }
        switch event {
        case .loadFinished where options.watch:
            startWatching()
            if let change = reloading {
                reloading = nil
                say("\(change.paths.joined(separator: ", ")) changed: reloaded in \(Self.milliseconds(since: change.firstSeen)) ms")
            }
        case .loadFinished where options.until == .load && !options.windowed:
            Task { @MainActor [weak self] in
                try? await Task.sleep(nanoseconds: 500_000_000)  // let first paint and scripts settle
                self?.finish(RunOutcome(exitCode: 0, summary: "loaded"))
            }
        default:
            break
        }
    }

    // MARK: --watch

    /// Starts watching a directory TARGET once its page first loaded.
    private func startWatching() {
        guard watcher == nil, case .directory(let root)? = try? RunTarget.resolve(options.target, entry: options.entry, store: nil).kind else {
            return
        }
        do {
            watcher = try RunWatcher(root: root) { [weak self] change in self?.filesChanged(change) }
            say("watching \(root.path): saving reloads the page, CSS is swapped in place")
        } catch {
            say("\(error)")
        }
    }

    private func filesChanged(_ change: RunWatcher.Change) {
        guard let view, !view.isClosed else { return }
        guard change.isStyleOnly, view.engine.isAlive, !view.engine.isLoading else {
            reload(for: change)
            return
        }
        swapping = Task { @MainActor [weak self] in
            do {
                let swapped = try await view.engine.callAsync(Self.swapStyleSheets)
                self?.say("\(change.paths.joined(separator: ", ")) changed: \(swapped.numberValue.map { Int($0) } ?? 0) style sheet(s) "
                          + "swapped in \(Self.milliseconds(since: change.firstSeen)) ms, no reload")
            } catch {
                self?.reload(for: change)
            }
        }
    }

    private func reload(for change: RunWatcher.Change) {
        say("\(change.paths.joined(separator: ", ")) changed: reloading")
        reloading = change
        view?.reload()
    }

    /// Replaces each style sheet link with a fresh copy of itself (its URL made unique), the old one
    /// removed once the new one loaded, so the page never shows unstyled; resolves with their count.
    static let swapStyleSheets = """
        const links = [...document.querySelectorAll('link[rel~="stylesheet"]')];
        await Promise.all(links.map(link => new Promise(resolve => {
          const next = link.cloneNode();
          const url = new URL(link.href);
          url.searchParams.set('hybrid-watch', String(Date.now()));
          next.href = url.href;
          next.onload = next.onerror = () => { link.remove(); resolve(); };
          link.after(next);
        })));
        return links.length;
        """

    private static func milliseconds(since start: ContinuousClock.Instant) -> Int {
        let elapsed = ContinuousClock.now - start
        return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }

    /// `hybrid run: script error: MESSAGE (SOURCE:LINE)`, written at once.
    nonisolated static func printScriptError(_ report: ScriptErrorReport) {
        let place = [report.source, report.line.map { String($0) }].compactMap { $0 }.joined(separator: ":")
        let suffix = place.isEmpty ? "" : " (\(place))"
        FileHandle.standardOutput.write(Data("hybrid run: script \(report.type): \(report.message)\(suffix)\n".utf8))
    }

    /// A line for the terminal, written at once (a test or an editor integration reads it live).
    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data("hybrid run: \(line)\n".utf8))
    }

    // MARK: HybridWebViewDelegate

    func webView(_ webView: HybridWebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        if options.verbose { print("[policy] allow \(action.type.rawValue) \(action.request.url.absoluteString)") }
        return .allow
    }

    func webView(_ webView: HybridWebView, decidePolicyFor response: NavigationResponse) async -> NavigationResponsePolicy {
        if response.isMainFrame, response.statusCode >= 400, options.watch, watcher != nil {
            say("\(response.url.absoluteString) answered HTTP \(response.statusCode) (fix it and save: watching)")
        } else if response.isMainFrame, response.statusCode >= 400 {
            finish(RunOutcome(exitCode: 2, summary: "\(response.url.absoluteString) answered HTTP \(response.statusCode)"))
        }
        return response.canShowMIMEType ? .allow : .cancel
    }

    func webView(_ webView: HybridWebView, runDialog completion: ScriptDialogCompletion) {
        if options.verbose { print("[dialog] \(completion.dialog.kind.rawValue): \(completion.dialog.message) → safe default") }
        completion.completeWithSafeDefault()
    }

    func webView(_ webView: HybridWebView, didDetectWhiteScreen event: WhiteScreenEvent) {
        if options.watch { reloading = nil }
        switch event.recovery {
        case .reload(let delay):
            print("hybrid run: white screen (\(event.reason)); reloading after \(delay) s")
        case .showErrorPage:
            finish(RunOutcome(exitCode: 2, summary: "unrecoverable: \(event.reason)"))
        }
    }

    func webView(_ webView: HybridWebView, didFailLoad failure: LoadFailure) {
        if options.watch, watcher != nil {
            reloading = nil
            say("load of \(failure.url?.absoluteString ?? "?") failed: \(failure.message) (fix it and save: watching)")
            return
        }
        finish(RunOutcome(exitCode: 2, summary: "load of \(failure.url?.absoluteString ?? "?") failed: \(failure.message)"))
    }

    func webView(_ webView: HybridWebView, didRollBack rollback: PackageRollback) {
        print("hybrid run: rolled back '\(rollback.id)' from version \(rollback.from) to \(rollback.to) [\(rollback.reason.code)]: "
              + "version \(rollback.from) is blocked because \(rollback.reason.sentence)")
        health?.rolledBack(rollback)
    }

    func webView(_ webView: HybridWebView, openExternal navigation: ExternalNavigation) {
        print("hybrid run: the page hands \(navigation.url.absoluteString) to the app (not opened here)")
    }

    func webView(_ webView: HybridWebView, didBlockNavigation navigation: BlockedNavigation) {
        print("hybrid run: blocked \(navigation.url.absoluteString): \(navigation.reason)")
    }
}
#endif
