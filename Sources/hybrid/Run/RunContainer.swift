#if os(Linux)
import Foundation
import HybridBlink
import HybridCore
import HybridGTK

/// Makes `hybrid run`'s container: a ``HybridWebView`` with the bridge modules page authors get
/// (device, storage, test), for the target, and — with `--config` — the engine and features
/// the document decides for the target URL, installed by the API an app calls
/// (``HybridWebView/make(for:engines:configuration:packages:provisions:)``).
@MainActor
struct RunContainer {
    let options: RunOptions
    let target: RunTarget
    let modules: [any BridgeModule]
    /// Origins that get the bridge modules (the target's and `--allow`'s).
    let origins: [OriginPattern]
    /// Records the page's timing and errors for the report (`--report`).
    var health: HealthRecorder?
    /// The app's cookie jar: the source of truth when the decision turns cookie sync on.
    let jar = CookieJar()
    /// The engines' providers (`hybrid webdriver` shares one cache between its sessions).
    var providers = ProviderCache()
    /// A WebDriver session's container (`hybrid webdriver`): automation allowed, and without a
    /// config the jar synced with the engine, so the test's cookies are the app's.
    var automation = false

    /// The view, and the decision when a config decided.
    func make() async throws -> (view: HybridWebView, decision: FeatureDecision?) {
        let engines = EngineRegistry(defaultProvider: try providers.provider(options.engine))
        engines.register(kind: "webkit") { _ in try providers.provider(.webkit) }
        engines.register(kind: "blink") { _ in try providers.provider(.blink) }
        var base = HybridWebViewConfiguration(engine: EngineConfiguration(schemeHandlers: target.schemeHandlers, viewportSize: options.viewport),
                                              modules: modules)
        base.package = target.package
        base.health = health
        base.allowsAutomation = automation
        base.inspectable = options.inspect
        guard let config = options.config else {
            let provider = engines.defaultProvider
            if automation {
                for cookie in options.cookies { jar.setCookie(cookie) }
                let sync = CookieSync(jar: jar, store: provider.cookieStore)
                await sync.start()
                base.cookieSync = sync
            }
            return (try HybridWebView(provider: provider, configuration: base.fitted(to: provider.capabilities)), nil)
        }
        let decision = config.decision(for: target.url)
        // The cookies file seeds the jar when the decision syncs it; otherwise it goes to the engine.
        if decision.features.cookieSync {
            for cookie in options.cookies { jar.setCookie(cookie) }
        }
        let verbose = options.verbose
        let provisions = try FeatureProvisions(jar: jar, proxyOrigins: origins) { record in
            if verbose { print("[proxy] \(record)") }
        }
        // The run is the app: the page's origins (the target's and --allow's) take what the config
        // prefetches, from those same origins; a declaration targeting any other is refused, said here.
        provisions.prefetchOrigins = origins
        provisions.prefetchTargets = origins
        for refused in provisions.prefetchRules(decision.features.prefetch).refused {
            print("hybrid run: prefetch refused [\(refused.code)]: \(refused) (allow its origin with --allow ORIGIN)")
        }
        let packages = target.package.map { [$0.id: $0] } ?? [:]
        let view = try await HybridWebView.make(for: decision, engines: engines, configuration: base, packages: packages,
                                                provisions: provisions)
        return (view, decision)
    }

    /// Whether the cookies file must go straight into the engine's store (no cookie sync).
    func cookiesGoToEngine(_ view: HybridWebView) -> Bool { view.configuration.cookieSync == nil }
}

/// One provider per engine kind for the run, made on first use.
@MainActor
final class ProviderCache {
    private var made: [RunOptions.Engine: any WebEngineProvider] = [:]
    /// Chromium opens its DevTools endpoint on loopback (`--inspect`).
    private let inspect: Bool

    /// A cache; with `inspect`, a Blink provider's browser opens its DevTools endpoint.
    init(inspect: Bool = false) { self.inspect = inspect }

    /// The Blink provider, if one was made.
    var blink: BlinkEngineProvider? { made[.blink] as? BlinkEngineProvider }

    func provider(_ engine: RunOptions.Engine) throws -> any WebEngineProvider {
        if let provider = made[engine] { return provider }
        let provider: any WebEngineProvider = switch engine {
        case .webkit: try GTKEngineProvider(session: .ephemeral)
        case .blink:
            try Self.blink(inspect: inspect)
        }
        made[engine] = provider
        return provider
    }

    private static func blink(inspect: Bool) throws -> BlinkEngineProvider {
        let provider = try BlinkEngineProvider(session: .ephemeral)
        if inspect { provider.extraArguments += RunInspector.blinkArguments(port: nil) }
        return provider
    }
}
#endif
