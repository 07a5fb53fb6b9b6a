import Foundation
import HybridNetwork
import HybridBridge
import HybridEngine
import HybridHealth
import HybridPackages
import HybridBase

/// An offline package a container serves from its custom scheme, and confirms or rolls back
/// as its pages load or fail.
public struct PackageBinding: Sendable {
    /// The installer whose store holds the package; it confirms or rolls back versions.
    public var installer: PackageInstaller
    /// The package's identifier in the store.
    public var id: String
    /// The custom scheme the package is served on (`app` for `app://m.example.com/…`).
    public var scheme: String
    /// Serves the package's active version on ``scheme``.
    public var handler: PackageSchemeHandler
    /// When a newly activated version counts as healthy, and when it is rolled back instead.
    public var bootHealth: BootHealthPolicy

    /// Binds package `id` of `installer`'s store to `scheme`.
    /// - Parameters:
    ///   - network: Fetches what the package cannot answer from its real origin; by default
    ///     ``PackageSchemeHandler/urlSessionFetch``.
    ///   - bootHealth: By default a new version is on trial until its page calls
    ///     `hybrid.call('app', 'ready')` (``BootHealthPolicy``).
    public init(installer: PackageInstaller, id: String, scheme: String, network: PackageSchemeHandler.NetworkFetch? = nil,
                bootHealth: BootHealthPolicy = BootHealthPolicy()) {
        self.installer = installer
        self.id = id
        self.scheme = scheme.lowercased()
        self.bootHealth = bootHealth
        handler = PackageSchemeHandler(store: installer.store, id: id, customScheme: scheme, network: network)
    }

    /// The active version's manifest: through ``handler``'s memory when it serves this package of
    /// this store (an open asks for it before its load), else read from the store.
    var activeManifest: PackageManifest? {
        if handler.id == id, handler.store.root == installer.store.root { return handler.activeManifest }
        return try? installer.store.activePackage(id).manifest
    }

    /// The scheme of the active version's real origin (`https`), `nil` when nothing is installed.
    var originScheme: String? { activeManifest?.originURL?.scheme?.lowercased() }

    /// Whether `url` is a page of this package in the view: the package's scheme in the view and
    /// the active manifest's host and port (the scheme alone is not enough: on Blink a package is
    /// served at an https origin, where other sites are too).
    func serves(_ url: URL?) -> Bool {
        guard let url, url.scheme?.lowercased() == scheme, let origin = BridgeOrigin(url: url) else { return false }
        return origin == AppModule.origin(of: self)
    }
}

/// Everything a ``HybridWebView`` is made with. Fixed for the view's life (an engine view's
/// configuration cannot change after creation), so a ``WebViewPool`` makes all its views
/// from one of these.
@MainActor
public struct HybridWebViewConfiguration {
    /// The engine's configuration: scripts, style sheets, custom schemes, viewport, and the
    /// media policy — autoplay and inline playback are decided here, before creation.
    public var engine: EngineConfiguration
    /// Bridge modules registered on the view's router.
    public var modules: [any BridgeModule]
    /// Names of the bridge's isolated world, handler and URL scheme, and its transport.
    public var bridgeOptions: BridgeHost.Options
    /// Size and concurrency limits on bridge calls.
    public var bridgeLimits: BridgeRouter.Limits
    /// Keeps the app's cookie jar and the engine's store in step; shared by all views of a
    /// provider. Each navigation waits for it (``CookieSync/prepareNavigation(to:)``).
    public var cookieSync: CookieSync?
    /// An offline package served through its scheme, marked loaded / rolled back by the view.
    public var package: PackageBinding?
    /// CSS, scripts and HTML fragments added to pages.
    public var injections: [PageInjection]
    /// When a page counts as white and how the view recovers it.
    public var whiteScreen: WhiteScreenPolicy
    /// How long the liveness probe waits when the view becomes visible (seconds).
    public var livenessTimeout: Double
    /// How the progress bar moves (see ``ProgressModel``).
    public var progress: ProgressModel.Options
    /// What the app's back button does (``HybridWebView/handleBackButton()``).
    public var back: BackPolicy
    /// Undo text-size changes after a back navigation (the page comes back from the page cache
    /// with whatever size it had).
    public var resetsTextSizeAfterBack: Bool
    /// Interception, token parameters, system/payment schemes and unknown schemes
    /// (``NavigationPolicy``); `nil` leaves every navigation to the app's delegate.
    public var navigation: NavigationPolicy?
    /// Pages of these origins get the bridge's `navigation` module (open, close, setTitle, back)
    /// served by their own container; `nil` registers none. Each view gets its own module, so
    /// a pooled configuration still routes every page to the view that shows it.
    public var navigationModuleOrigins: [OriginPattern]?
    /// Who may use the camera, microphone, position and notifications (docs/data.md). The default
    /// lists no origin: every request is denied without asking.
    public var permissions: PermissionPolicy?
    /// Starts the data requests of a page when the app opens it (``HybridWebView/open(_:)``,
    /// ``WebViewPool/open(_:)``); its ``PrefetchModule`` and page script are in ``modules`` and
    /// ``engine``. Set by ``installing(_:from:cookieStore:)`` for a decision that declares prefetches.
    public var prefetcher: DataPrefetcher?
    /// Records what the view's pages do for the app's sinks (launches, timing, ready, script
    /// errors, white screens, crashes, rollbacks; see docs/health.md); `nil`, the default, records
    /// nothing and injects nothing.
    public var health: HealthRecorder?
    /// Network pages of these origins may mark their launch ready (`hybrid.call('app', 'ready')`),
    /// recorded by ``health``; they never confirm or roll back a package version. Empty, the
    /// default, admits no network page; without ``health`` the list is ignored.
    public var readyOrigins: [OriginPattern] = []
    /// The remote-config decision the configuration was made for (``applying(_:packages:)`` sets
    /// it): health events carry its rule and the install's rollout bucket.
    public var decision: FeatureDecision?
    /// Whether a WebDriver endpoint (the `HybridWebDriver` product) may drive this view. Off by
    /// default, and nothing a page does can set it: an app turns it on in its own debug builds, or
    /// lets a signed remote-config rule turn it on for listed install ids
    /// (``FeatureProvisions/allowsRemoteAutomation``, ``FeatureSet/automation``).
    public var allowsAutomation = false
    /// How the view keeps its page's state and gives it back after the content process dies
    /// (docs/restore.md). On by default; a page opts out with `<meta name="hybrid-restore" content="none">`.
    public var restore = RestorePolicy()
    /// Whether the engine's inspector may open this view's pages (WebKit's Web Inspector and remote
    /// inspector, WKWebView's `isInspectable`; on Blink the DevTools endpoint is the browser's, opened
    /// by the provider). Off by default, and nothing a page does can set it: an app turns it on in its
    /// debug builds (`hybrid run --inspect` does), or lets a signed remote-config rule turn it on for
    /// listed install ids (``FeatureProvisions/allowsRemoteInspection``, ``FeatureSet/inspectable``).
    public var inspectable = false
    /// Set by ``WebViewPool/prerender(_:)`` on the view it prerenders a page in: that page's
    /// semantics and the calls that wait for its activation (``PrerenderFeature``).
    var prerender: PrerenderFeature.Setup?

    /// A configuration; by default no modules, package, injections, cookie sync or navigation policy.
    public init(engine: EngineConfiguration = EngineConfiguration(), modules: [any BridgeModule] = [],
                bridgeOptions: BridgeHost.Options = BridgeHost.Options(), bridgeLimits: BridgeRouter.Limits = BridgeRouter.Limits(),
                cookieSync: CookieSync? = nil, package: PackageBinding? = nil, injections: [PageInjection] = [],
                whiteScreen: WhiteScreenPolicy = WhiteScreenPolicy(), livenessTimeout: Double = 1.5,
                progress: ProgressModel.Options = ProgressModel.Options(), back: BackPolicy = BackPolicy(),
                resetsTextSizeAfterBack: Bool = false) {
        self.engine = engine
        self.modules = modules
        self.bridgeOptions = bridgeOptions
        self.bridgeLimits = bridgeLimits
        self.cookieSync = cookieSync
        self.package = package
        self.injections = injections
        self.whiteScreen = whiteScreen
        self.livenessTimeout = livenessTimeout
        self.progress = progress
        self.back = back
        self.resetsTextSizeAfterBack = resetsTextSizeAfterBack
    }

    /// Serves `directory` on `scheme` (`local://app/index.html`), never through `file://`.
    public mutating func serveLocalDirectory(_ directory: URL, scheme: String = "local") {
        engine.schemeHandlers[scheme] = DirectorySchemeHandler(root: directory)
    }

    /// The engine configuration with the bridge, package scheme and injections added.
    func engineConfiguration(bridge: BridgeHost) -> EngineConfiguration {
        var configuration = engine
        bridge.configure(&configuration)
        if let package {
            // Blink's byte channel is a loopback origin the package's own policy must let the page reach.
            var handler = package.handler
            if let endpoint = bridge.byteChannel?.endpoint, !handler.connectSources.contains(endpoint) {
                handler.connectSources.append(endpoint)
            }
            configuration.schemeHandlers[package.scheme] = handler
        }
        for injection in injections { injection.apply(to: &configuration) }
        configuration.permissionGrants = permissions?.grants ?? [:]
        if inspectable { configuration.developerExtras = true }
        return configuration
    }
}
