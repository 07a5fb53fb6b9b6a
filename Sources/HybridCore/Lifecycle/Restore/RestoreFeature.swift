import Foundation
import HybridBase
import HybridBridge
import HybridEngine

/// Why a page's state was given back (``PageRestoreEvent``).
public enum PageRestoreReason: Sendable, Equatable {
    /// The content process ended (or hung and was ended) and recovery reloaded the page.
    case whiteScreen(WhiteScreenReason)
    /// The app gave back a snapshot it stored (``HybridWebView/restore(from:)``).
    case relaunch

    /// The stable code the page's `restored` event carries (`terminated_crashed`, `relaunch`, …).
    public var code: String {
        switch self {
        case .whiteScreen(let reason): reason.code
        case .relaunch: "relaunch"
        }
    }
}

/// A page's state was given back (``HybridWebViewDelegate/webView(_:didRestore:)``).
public struct PageRestoreEvent: Sendable, Equatable {
    /// Why.
    public var reason: PageRestoreReason
    /// Milliseconds between the state the view kept and the loss (or the relaunch): what the
    /// user may have done that is not back.
    public var lostMs: Int
    /// The page restored.
    public var url: URL
}

/// Crash-state restore (``HybridWebViewConfiguration/restore``, docs/restore.md): keeps the page's
/// last reported state (`hybrid-restore.js`: sessionStorage, scroll position, form fields, with the
/// view's same-origin history), and when recovery reloads a page whose content process died, gives
/// it back once the page has loaded again, then tells the page (`hybrid.on('restored')`) and the app
/// (``HybridWebViewDelegate/webView(_:didRestore:)``). The same state is what
/// ``HybridWebView/snapshotState()`` hands the app and ``HybridWebView/restore(from:)`` takes back.
///
/// Never into another origin: the page that loaded must be of the state's origin. Nothing crosses
/// pages: an app's navigation, a pool taking the view back and closing drop the state.
@MainActor
final class RestoreFeature: ViewFeature {
    /// What the page's `hybrid.on('restored')` listeners receive.
    struct RestoredEvent: Encodable, Sendable {
        var reason: String
        var lostMs: Int
    }

    /// A restore waiting for its page to load.
    private struct Pending {
        var state: PageState
        var reason: PageRestoreReason
        var lostAt: Date
        var rebuildsHistory: Bool
    }

    private let policy: RestorePolicy
    private let world: ScriptWorld
    private weak var view: HybridWebView?
    /// The page's last state; `nil` when it keeps none (opted out, too large, nothing loaded).
    private(set) var latest: PageState?
    private var pending: Pending?
    private var terminatedAt: Date?

    init(policy: RestorePolicy, world: ScriptWorld) {
        self.policy = policy
        self.world = world
    }

    func prepare(_ setup: inout ViewFeatureSetup) {
        setup.userScripts.append(UserScript(source: PageStateReport.source, injectionTime: .documentStart,
                                            frames: .mainFrameOnly, world: world))
        setup.messageHandlers.append(ScriptMessageHandler(name: PageStateReport.handlerName, world: world, receive: { [weak self] message in
            guard case .string(let text) = message.body else { return }
            self?.received(text)
        }))
    }

    func attach(to view: HybridWebView) { self.view = view }

    func viewDidReport(_ event: ViewEvent) {
        switch event {
        case .appLoading, .enqueued, .closing:
            latest = nil
            pending = nil
        case .engine(.contentProcessTerminated):
            terminatedAt = Date()
        case .whiteScreen(let white):
            if case .reload = white.recovery, let state = latest {
                pending = Pending(state: state, reason: .whiteScreen(white.reason), lostAt: terminatedAt ?? Date(),
                                  rebuildsHistory: false)
            }
            terminatedAt = nil
        case .pageFinished(let url, _):
            guard let restore = pending else { return }
            pending = nil
            Task { [weak self] in await self?.apply(restore, to: url) }
        case .pageFailed:
            pending = nil
        default:
            break
        }
    }

    private func received(_ text: String) {
        guard let view, !view.isClosed, let report = PageStateReport.parse(text, maxBytes: policy.maxBytes) else { return }
        // A report of a document the view no longer shows (a late pagehide) is not the page's.
        guard BridgeOrigin(url: report.url) == view.engine.url.flatMap(BridgeOrigin.init(url:)) else { return }
        latest = report.state(history: view.engine.backForwardList.back.map(\.url), now: Date())
    }

    /// The page's state now: asked of the page when its process lives, else the last it reported.
    func currentState() async -> PageState? {
        guard let view, !view.isClosed else { return nil }
        if view.engine.isAlive, view.engine.url != nil,
           case .string(let text)? = try? await view.engine.evaluate("window.__hybridkitRestoreReport ? window.__hybridkitRestoreReport() : null",
                                                                      in: world) {
            received(text)
        }
        return latest
    }

    /// Restores `state` into the page the view loads next.
    func restore(_ state: PageState) {
        guard let view, !view.isClosed else { return }
        view.load(state.url)
        pending = Pending(state: state, reason: .relaunch, lostAt: Date(), rebuildsHistory: true)
    }

    private func apply(_ restore: Pending, to url: URL?) async {
        guard let view, !view.isClosed, let url, BridgeOrigin(url: url) == restore.state.origin else { return }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        guard let data = try? encoder.encode(restore.state), let state = try? JSONDecoder().decode(JSONValue.self, from: data) else { return }
        let applied = try? await view.engine.callAsync("return window.__hybridkitRestoreApply ? window.__hybridkitRestoreApply(state, history) : false",
                                                       arguments: ["state": state, "history": .bool(restore.rebuildsHistory)], in: world)
        guard applied == .bool(true), !view.isClosed else { return }
        let event = PageRestoreEvent(reason: restore.reason,
                                     lostMs: max(0, Int(restore.lostAt.timeIntervalSince(restore.state.taken) * 1000)), url: url)
        await emitRestored(RestoredEvent(reason: event.reason.code, lostMs: event.lostMs), in: view)
        view.delegate?.webView(view, didRestore: event)
    }

    /// Emits `restored` once the page's bridge can hear it (its hello may still be on its way).
    private func emitRestored(_ event: RestoredEvent, in view: HybridWebView) async {
        for _ in 0..<40 {
            guard !view.isClosed else { return }
            if (try? view.bridge.emit("restored", event)) == true { return }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
    }
}

extension HybridWebView {
    /// The state the view would give back if the page's content process died now, as the page last
    /// reported it (after its load, its last input or scroll, when hidden); `nil` when it keeps none.
    public var keptPageState: PageState? { feature(RestoreFeature.self)?.latest }

    /// The page's state as bytes the app stores (when it goes to the background, say) and gives
    /// back to ``restore(from:)`` after a relaunch: the page's URL, its same-origin history,
    /// sessionStorage, scroll position and form fields (docs/restore.md).
    /// - Returns: at most ``RestorePolicy/maxBytes`` bytes.
    /// - Throws: `HybridError.restore(.nothingToSave)` when the page keeps no state (nothing
    ///   loaded, opted out, restore off), `.tooLarge` over the bound.
    public func snapshotState() async throws -> Data {
        guard let feature = feature(RestoreFeature.self), let state = await feature.currentState() else {
            throw HybridError.restore(.nothingToSave)
        }
        return try state.encoded(policy: configuration.restore)
    }

    /// Loads the page of a snapshot ``snapshotState()`` made and, once it has loaded (in the
    /// snapshot's origin, never another), gives its state back, rebuilds its history within the
    /// page, and tells the page (`hybrid.on('restored')`, reason `relaunch`) and the delegate.
    /// With ``HybridWebViewConfiguration/restore`` off it loads the page and gives nothing back.
    /// - Throws: `HybridError.restore` (``RestoreFailure``) for bytes that are corrupt, oversized,
    ///   expired or name another origin; nothing is loaded then.
    public func restore(from data: Data) throws {
        let state = try PageState.decode(data, policy: configuration.restore)
        if let feature = feature(RestoreFeature.self) { feature.restore(state) } else { load(state.url) }
    }
}
