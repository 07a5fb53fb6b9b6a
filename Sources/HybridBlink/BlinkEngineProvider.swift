#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Foundation
import HybridCore

/// Blink's process pool and profile: one Chromium browser (started on first use, restarted
/// after it dies) serving every view this provider makes, each view a DevTools target.
///
/// Chromium runs with `--no-sandbox` by default: the tests and CI here run as root, where
/// Chromium's sandbox refuses to start. An app running as an ordinary user should set
/// ``usesSandbox`` (see `docs/engines.md`). Site isolation is off, as in Android's
/// WebView, so every frame of a view lives in its target (user scripts and interception see them).
@MainActor
public final class BlinkEngineProvider: WebEngineProvider {
    /// `blink`.
    public let engineName = "blink"
    /// ``BlinkDriver/capabilities``.
    public let capabilities = BlinkDriver.capabilities
    /// ``BlinkDriver/limitations``.
    public let limitations = BlinkDriver.limitations
    /// A temporary profile, or a persistent profile directory.
    public let sessionKind: EngineSessionKind
    /// Run without a window (`--headless=new`); a window needs a display.
    public let headless: Bool
    /// The Chromium executable used.
    public let executable: String

    private var browser: BlinkBrowser?
    private var views: [Weak<BlinkWebEngine>] = []
    private lazy var sharedCookieStore = BlinkCookieStore(provider: self)
    /// The browser's downloads, each placed by the view that started it (BlinkDownloads.swift).
    private(set) lazy var downloads = BlinkDownloads { [weak self] in
        self?.views.compactMap { $0.value?.isClosed == false ? $0.value?.driver : nil } ?? []
    }

    /// - Parameters:
    ///   - session: ephemeral (a temporary profile, deleted when the browser exits) or persistent
    ///     (the profile directory; cookies survive a restart after ``shutdown()``).
    ///   - headless: `false` opens real windows when `DISPLAY` is set.
    /// - Throws: `HybridError.engine(.unavailable)` when no Chromium is installed.
    public init(session: EngineSessionKind = .ephemeral, headless: Bool = true) throws {
        sessionKind = session
        self.headless = headless || ProcessInfo.processInfo.environment["DISPLAY"] == nil
        guard let found = Self.findChromium() else {
            throw HybridError.engine(.unavailable("Chromium not found (install the chromium package or set HYBRID_CHROMIUM)"))
        }
        executable = found
    }

    /// A provider nobody holds any more ends its browser cleanly in the background.
    isolated deinit {
        browser?.terminate()
    }

    /// The browser's cookie store, shared by every view.
    public var cookieStore: any EngineCookieStore { sharedCookieStore }

    /// The loopback origin of this process's byte server (``BlinkByteServer``), where every Blink
    /// view serves its bridge's byte channel; `nil` when no loopback socket could be opened (bytes
    /// then stay in messages as base64).
    public var byteChannelOrigin: String? { BlinkByteServer.shared?.origin }

    /// A new view: a page target in this provider's browser, which is started (or restarted) first
    /// if it is not running.
    /// - Throws: `HybridError.engine(.unavailable)` when Chromium cannot be started.
    public func makeEngine(_ configuration: EngineConfiguration) throws -> any WebEngine {
        try makeBlinkEngine(configuration)
    }

    /// Like ``makeEngine(_:)`` with the concrete type.
    public func makeBlinkEngine(_ configuration: EngineConfiguration) throws -> BlinkWebEngine {
        let driver = BlinkDriver(provider: self, browser: try runningBrowser(), configuration: configuration)
        let engine = BlinkWebEngine(driver: driver, messageHandlers: configuration.messageHandlers)
        views.removeAll { $0.value == nil }
        views.append(Weak(engine))
        return engine
    }

    /// Number of views this provider made that are still open.
    public var liveViewCount: Int { views.filter { $0.value?.isClosed == false }.count }

    /// Whether the browser process is running now.
    public var isBrowserRunning: Bool { browser.map { !$0.hasExited } ?? false }

    /// Closes every view and the browser, letting Chromium flush its profile. The next view starts a new browser.
    public func shutdown() async {
        for view in views { view.value?.close() }
        views.removeAll()
        await browser?.shutdown()
        browser = nil
    }

    /// Sets the profile's "Preload pages" setting to never (`net.network_prediction_options` 2 in
    /// `Default/Preferences`, kept with the rest of the file), before the browser starts.
    /// Chromium otherwise acts on a page's `<script type="speculationrules">` itself (measured,
    /// Chromium 156: a `Sec-Purpose: prefetch;prerender` request of each listed URL, whatever
    /// `--disable-features=Prerender2` says): a second request of a URL the container prerenders,
    /// and a load of URLs the app's `PrerenderPolicy` never admitted. There is no switch for it;
    /// this setting is what stops it. A file that is not a JSON object is left alone.
    static func turnOffChromiumPreloading(in profile: URL) {
        let directory = profile.appendingPathComponent("Default")
        let file = directory.appendingPathComponent("Preferences")
        var preferences: [String: Any] = [:]
        if let data = try? Data(contentsOf: file) {
            guard let existing = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return }
            preferences = existing
        }
        var net = preferences["net"] as? [String: Any] ?? [:]
        guard net["network_prediction_options"] as? Int != 2 else { return }
        net["network_prediction_options"] = 2
        preferences["net"] = net
        guard let data = try? JSONSerialization.data(withJSONObject: preferences) else { return }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try? data.write(to: file, options: .atomic)
    }

    /// The browser if it runs now (nil before the first view or after it died).
    var currentBrowser: BlinkBrowser? { browser.flatMap { $0.hasExited ? nil : $0 } }

    /// The running browser, started now if there is none or the last one died.
    func runningBrowser() throws -> BlinkBrowser {
        if let browser, !browser.hasExited { return browser }
        let profile: URL
        switch sessionKind {
        case .ephemeral:
            profile = FileManager.default.temporaryDirectory.appendingPathComponent("hybridkit-blink-\(UUID().uuidString)")
        case .persistent(let directory):
            profile = directory
        }
        try? FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        Self.turnOffChromiumPreloading(in: profile)
        var arguments = [
            "--remote-debugging-pipe", "--user-data-dir=\(profile.path)",
            "--no-first-run", "--no-default-browser-check", "--disable-dev-shm-usage",
            "--disable-features=IsolateOrigins,site-per-process,BackForwardCache,Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider",
            "--disable-background-networking", "--disable-sync", "--disable-component-update", "--disable-extensions",
            "--disable-renderer-backgrounding", "--disable-background-timer-throttling",
            "--disable-backgrounding-occluded-windows", "--password-store=basic", "--mute-audio",
            // Blink drops navigations beyond 200 per 10 s, which stalls a URL-navigation bridge.
            "--disable-ipc-flooding-protection",
        ]
        if headless { arguments.insert("--headless=new", at: 0) }
        if !usesSandbox { arguments.append("--no-sandbox") }
        // A test pattern and a tone instead of real devices; permission is still the policy's.
        if usesFakeCaptureDevices { arguments.append("--use-fake-device-for-media-stream") }
        arguments += extraArguments
        arguments.append("about:blank")  // the first tab; views are targets of their own
        // setpriv asks the kernel to SIGKILL the browser if this process dies without cleaning up.
        var launcher = executable
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") {
            arguments = ["--pdeathsig", "KILL", "--", executable] + arguments
            launcher = "/usr/bin/setpriv"
        }
        var environment: [String: String] = [:]
        if let temporaryDirectory { environment["TMPDIR"] = temporaryDirectory.path }
        let leftovers = BlinkLeftovers(profile: profile, profileIsTemporary: sessionKind == .ephemeral)
        let started = try BlinkBrowser(executable: launcher, arguments: arguments, environment: environment, leftovers: leftovers)
        browser = started
        profileDirectory = profile
        return started
    }

    /// The profile (`--user-data-dir`) of the browser started last.
    public private(set) var profileDirectory: URL?

    /// Where Chromium keeps its temporary files (`TMPDIR`; its singleton socket lives there).
    /// Default: this process's. Read when a browser starts.
    public var temporaryDirectory: URL?

    /// The process id of the running browser (nil when none runs).
    public var browserProcessID: Int32? { currentBrowser?.pid }

    /// Kills the browser as a crash would (tests of recovery).
    public func killBrowserForTesting() { browser?.kill() }

    /// Keep Chromium's sandbox (not possible as root). Read when a browser starts.
    public var usesSandbox = false

    /// Capture devices are Chromium's fakes (`--use-fake-device-for-media-stream`: a test pattern
    /// and a tone; no permission is granted by it). Read when a browser starts.
    public var usesFakeCaptureDevices = false

    /// Flags added to every browser this provider starts (before it starts).
    public var extraArguments: [String] = []

    private static func findChromium() -> String? {
        var candidates = ["/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        if let configured = ProcessInfo.processInfo.environment["HYBRID_CHROMIUM"] { candidates.insert(configured, at: 0) }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
#endif
