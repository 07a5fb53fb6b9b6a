import Foundation
import HybridBase

/// What every engine view does with its page, said once for both sides of the contract: the
/// ``WebEngine`` that HybridCore and apps talk to, and the ``EngineDriver`` each engine implements
/// (``ContractEngine`` passes these verbs through to its driver once its own checks allow).
///
/// All members run on the main actor: every engine lives on its UI thread.
@MainActor
public protocol EngineView: AnyObject {
    /// The engine's name (`webkit` — WebKitGTK on Linux, WKWebView on Apple platforms — or `blink`).
    var engineName: String { get }
    /// What the engine can do (the same as its provider's).
    var capabilities: EngineCapabilities { get }

    // MARK: Loading
    /// Loads a request (method, headers and body where the engine allows).
    func load(_ request: EngineRequest)
    /// Loads HTML as if it came from `baseURL` (relative URLs and origin follow it).
    func loadHTML(_ html: String, baseURL: URL?)
    /// Shows `data` as the response for `url`: history, origin and relative URLs are as for a
    /// normal load of `url` (used to overlap the network with view creation).
    func loadSimulatedResponse(_ data: Data, mimeType: String, encoding: String?, for url: URL)
    /// Stops the current load, if any.
    func stopLoading()
    /// Reloads the current page (starting a new content process after one died).
    func reload()
    /// Goes one entry back in the back-forward list; nothing happens when there is none.
    func goBack()
    /// Goes one entry forward in the back-forward list; nothing happens when there is none.
    func goForward()

    // MARK: State
    /// The URL of the current page, `nil` before the first load.
    var url: URL? { get }
    /// The current page's title, if it has one.
    var title: String? { get }
    /// A load is in progress.
    var isLoading: Bool { get }
    /// 0...1 as the engine estimates it.
    var estimatedProgress: Double { get }
    /// There is an entry to go back to.
    var canGoBack: Bool { get }
    /// There is an entry to go forward to.
    var canGoForward: Bool { get }
    /// The back-forward list as it is now, back items oldest first.
    var backForwardList: BackForwardList { get }
    /// What the engine itself knows of whether the content process answers (WebKitGTK's
    /// `is-web-process-responsive`), without a round trip to it: `false` once it is dead or the
    /// engine saw it stop answering; `nil` when the engine does not track it (the default), so a
    /// caller that must know sends a probe, such as evaluating a script.
    var isContentProcessResponsive: Bool? { get }

    // MARK: Cookies and process
    /// This view's cookie store (shared by every view of the same provider).
    var cookieStore: any EngineCookieStore { get }
    /// Ends the web content process (tests, recovery). A ``EngineEvent/contentProcessTerminated(_:)``
    /// follows (a driver reports it through ``EngineDriverHost/contentProcessTerminated(_:)``).
    func terminateContentProcess()
    /// Makes the view visible or hidden in its host (affects timers, media, visibility state).
    func setVisible(_ visible: Bool)
    /// Takes the view out of sight (the page sees itself hidden) but keeps its host mapped, so
    /// that ``setVisible(_:)`` with `true` shows it again without mapping and realising it anew
    /// (a warm pooled view). An engine that cannot do that hides it (the default).
    func setParked(_ parked: Bool)
}

extension EngineView {
    /// Hides the view (`setVisible(false)`) when parked and shows it when not: the fallback for
    /// engines that cannot keep a view mapped out of sight.
    public func setParked(_ parked: Bool) { setVisible(!parked) }
    /// An engine that does not track its content process's responsiveness.
    public var isContentProcessResponsive: Bool? { nil }
}
