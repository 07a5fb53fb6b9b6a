import Foundation
import HybridBase
import HybridBridge
import HybridEngine

/// The page of a view a ``WebViewPool`` prerenders (``WebViewPool/prerender(_:)``): the standard's
/// semantics the engine lacks (`hybrid-prerender.js`: `document.prerendering`, `visibilityState`,
/// `prerenderingchange`, `activationStart`), and the effectful modules'
/// (``PrerenderPolicy/effectfulModules``) calls held until the view is shown (``activate()``) or
/// failed when it is discarded (the view closes).
///
/// What else waits for activation needs nothing of this feature: a prerendering view is parked
/// (hidden), so dialogs get their safe defaults, and has no delegate until it is shown, so
/// `window.open`, permission prompts and downloads get the answers of a view without one.
@MainActor
final class PrerenderFeature: ViewFeature {
    /// The page being prerendered (``PrerenderPolicy/key(for:)``) and the modules that wait.
    struct Setup: Sendable, Equatable {
        /// The prerendered URL without its fragment.
        var url: String
        /// Modules whose calls wait for activation.
        var effectfulModules: Set<String>
    }

    private let setup: Setup
    private let gate = PrerenderGate()
    private weak var view: HybridWebView?
    /// The view was shown (``activate()``): its page is no longer prerendering.
    private(set) var isActivated = false
    /// When the prerendered document was told it is shown, on its clock (ms since its
    /// `timeOrigin`), read in the container's script world so the page cannot choose it; only
    /// with health recording (which measures the page's timings from it).
    private(set) var activationStart: Double?

    init(_ setup: Setup) { self.setup = setup }

    func prepare(_ viewSetup: inout ViewFeatureSetup) {
        let gate = self.gate
        viewSetup.modules = viewSetup.modules.map { module in
            setup.effectfulModules.contains(module.name) ? PrerenderDeferredModule(module, gate: gate) : module
        }
        let settings: JSONValue = ["url": .string(setup.url)]
        viewSetup.userScripts.append(UserScript(
            source: "window.__hybridkitPrerenderSettings = \(settings.jsonText);\n" + Self.runtime,
            injectionTime: .documentStart, frames: .mainFrameOnly, world: .page))
    }

    func attach(to view: HybridWebView) { self.view = view }

    func viewDidReport(_ event: ViewEvent) {
        switch event {
        case .closing:
            gate.close(BridgeFailure.cancelled)
        case .engine(.loadCommitted(let url)), .engine(.loadFinished(let url)):
            // Shown before its document was there (opened while the prerender still loaded):
            // the document learns it as soon as it is.
            if isActivated, !pageTold, let url, PrerenderPolicy.key(for: url) == setup.url {
                Task { await self.tellPage() }
            }
        default:
            break
        }
    }

    /// The view is being shown: the page learns it (`prerenderingchange`), the view's features
    /// (``ViewEvent/prerenderActivated``: health records the launch now), then the calls that
    /// waited run, in the order they were made. Once.
    func activate() async {
        guard !isActivated else { return }
        isActivated = true
        await tellPage()
        view?.report(.prerenderActivated)
        gate.open()
    }

    /// Whether the prerendered document has been told it is shown.
    private var pageTold = false

    /// Tells the prerendered document it is shown; when it is not there yet (the empty document of
    /// the warm-up, or none), the next commit or finished load of its URL does.
    private func tellPage() async {
        guard let view, !pageTold else { return }
        let told = try? await view.engine.evaluate(
            "window.__hybridkitPrerender ? window.__hybridkitPrerender.activate() : 'absent'", in: .page)
        guard let told, told != "absent" else { return }
        pageTold = true
        guard view.configuration.health != nil else { return }
        let world = ScriptWorld.named(view.configuration.bridgeOptions.worldName)
        if case .number(let now)? = try? await view.engine.evaluate("performance.now()", in: world) { activationStart = now }
    }

    /// `hybrid-prerender.js` as shipped.
    static let runtime = ScriptResource.source("hybrid-prerender", in: .module)
}

/// Holds calls until it opens (they then run) or closes (they fail with its error); after
/// either, calls pass or fail at once.
final class PrerenderGate: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Void, any Error>])
        case open
        case closed(any Error)
    }

    private let state = LockedState(State.waiting([]))

    /// Returns when the gate opens; throws when it closes.
    func pass() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome: Result<Void, any Error>? = state.withLock { state in
                switch state {
                case .waiting(let waiting):
                    state = .waiting(waiting + [continuation])
                    return nil
                case .open: return .success(())
                case .closed(let error): return .failure(error)
                }
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// Lets every waiting and later call through.
    func open() { finish(.open) }

    /// Fails every waiting and later call with `error` (a gate already open stays open).
    func close(_ error: any Error) { finish(.closed(error)) }

    private func finish(_ final: State) {
        let waiting: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            guard case .waiting(let waiting) = state else { return [] }
            state = final
            return waiting
        }
        for continuation in waiting {
            if case .closed(let error) = final { continuation.resume(throwing: error) } else { continuation.resume() }
        }
    }
}

/// A module whose every action waits for a ``PrerenderGate``.
struct PrerenderDeferredModule: BridgeModule {
    let name: String
    let allowedOrigins: [OriginPattern]
    let actions: [BridgeAction]

    init(_ module: any BridgeModule, gate: PrerenderGate) {
        name = module.name
        allowedOrigins = module.allowedOrigins
        actions = module.actions.map { $0.deferred(until: { try await gate.pass() }) }
    }
}
