import Foundation

/// Decisions and dialogs an engine view hands to its owner. Every method has a safe default.
@MainActor
public protocol WebEngineDelegate: AnyObject {
    /// Allow or cancel a navigation. Default: allow.
    func engine(_ engine: any WebEngine, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy
    /// Allow, cancel or download a response. Default: allow what the engine can show, else cancel.
    func engine(_ engine: any WebEngine, decidePolicyFor response: NavigationResponse) async -> NavigationResponsePolicy
    /// Present a script dialog; `completion` must be answered (it answers itself if dropped).
    /// Default: the safe default at once.
    func engine(_ engine: any WebEngine, runScriptDialog completion: ScriptDialogCompletion)
    /// The page asked to close its window (`window.close()`, where the engine lets a script close
    /// it). The engine stays open: closing it is the owner's call. Reported by WKWebView
    /// (`webViewDidClose`); the WebKitGTK and Blink adapters do not report it yet. Default: nothing.
    func engineRequestsClose(_ engine: any WebEngine)
}

extension WebEngineDelegate {
    public func engine(_ engine: any WebEngine, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy { .allow }
    public func engine(_ engine: any WebEngine, decidePolicyFor response: NavigationResponse) async -> NavigationResponsePolicy {
        response.canShowMIMEType ? .allow : .cancel
    }
    public func engine(_ engine: any WebEngine, runScriptDialog completion: ScriptDialogCompletion) {
        completion.completeWithSafeDefault()
    }
    public func engineRequestsClose(_ engine: any WebEngine) {}
}

/// The seam: the fewest verbs that every engine (WebKitGTK, WKWebView, Blink) can honour.
/// Everything else in HybridKit is built on top of these, once, in HybridCore.
///
/// All members run on the main actor: every engine lives on its UI thread.
@MainActor
public protocol WebEngine: AnyObject {
    /// The engine's name (`webkitgtk`, `wkwebview`, `blink`).
    var engineName: String { get }
    var capabilities: EngineCapabilities { get }
    var delegate: (any WebEngineDelegate)? { get set }

    // MARK: Loading
    /// Loads a request (method, headers and body where the engine allows).
    func load(_ request: EngineRequest)
    /// Loads HTML as if it came from `baseURL` (relative URLs and origin follow it).
    func loadHTML(_ html: String, baseURL: URL?)
    /// Shows `data` as the response for `url`: history, origin and relative URLs are as for a
    /// normal load of `url` (used to overlap the network with view creation).
    func loadSimulatedResponse(_ data: Data, mimeType: String, encoding: String?, for url: URL)
    func stopLoading()
    func reload()
    func goBack()
    func goForward()

    // MARK: State
    var url: URL? { get }
    var title: String? { get }
    var isLoading: Bool { get }
    /// 0...1 as the engine estimates it.
    var estimatedProgress: Double { get }
    var canGoBack: Bool { get }
    var canGoForward: Bool { get }
    var backForwardList: BackForwardList { get }
    /// `false` once the view was closed or its content process is gone for good.
    var isAlive: Bool { get }

    /// Calls `handler` for every ``EngineEvent``, in order, until the token is cancelled.
    func observe(_ handler: @escaping @MainActor (EngineEvent) -> Void) -> ObservationToken

    // MARK: Scripts
    /// Evaluates `script` in `world`; the completion value is returned as JSON.
    /// - Throws: `HybridError.engine(.javaScript)` with the exception's message.
    func evaluate(_ script: String, in world: ScriptWorld) async throws -> JSONValue
    /// Runs `body` as the body of an async function with `arguments` as its parameters and
    /// awaits the Promise it returns.
    /// - Throws: `HybridError.engine(.javaScript)` when it throws or rejects.
    func callAsync(_ body: String, arguments: [String: JSONValue], in world: ScriptWorld) async throws -> JSONValue

    // MARK: Cookies, snapshot, process
    var cookieStore: any EngineCookieStore { get }
    /// PNG data of the visible page.
    func snapshot() async throws -> Data
    /// Kills the web content process (tests, recovery). A ``EngineEvent/contentProcessTerminated(_:)`` follows.
    func terminateContentProcess()
    /// Makes the view visible or hidden in its host (affects timers, media, visibility state).
    func setVisible(_ visible: Bool)
    /// Takes the view out of sight (the page sees itself hidden) but keeps its host mapped, so
    /// that ``setVisible(_:)`` with `true` shows it again without mapping and realising it anew
    /// (a warm pooled view). An engine that cannot do that hides it (the default).
    func setParked(_ parked: Bool)
    /// Tears the view down. Pending script calls fail with `.closed`, open dialogs get their safe
    /// default, no callback reaches the owner afterwards. Idempotent.
    func close()
}

extension WebEngine {
    public func evaluate(_ script: String) async throws -> JSONValue { try await evaluate(script, in: .page) }
    public func callAsync(_ body: String, arguments: [String: JSONValue] = [:]) async throws -> JSONValue {
        try await callAsync(body, arguments: arguments, in: .page)
    }
    public func load(_ url: URL) { load(EngineRequest(url: url)) }
    public func setParked(_ parked: Bool) { setVisible(!parked) }
}

/// Creates engine views that share processes and a session (a WKProcessPool + WKWebsiteDataStore,
/// a WebKitWebContext + WebKitNetworkSession, a Chromium browser + profile).
@MainActor
public protocol WebEngineProvider: AnyObject {
    var engineName: String { get }
    /// What the engine can do; HybridCore's policies read it (bridge transport, engine choice).
    var capabilities: EngineCapabilities { get }
    /// Why each capability the engine lacks is missing, in a sentence (tests print it when they
    /// skip; docs/engines.md is checked against it). A lacking capability with no entry here is
    /// reported with a generic reason.
    var limitations: [EngineCapabilities: String] { get }
    /// The shared cookie store of every view this provider makes.
    var cookieStore: any EngineCookieStore { get }
    func makeEngine(_ configuration: EngineConfiguration) throws -> any WebEngine
}

extension WebEngineProvider {
    public var limitations: [EngineCapabilities: String] { [:] }

    /// `nil` when the engine has every capability in `capability`, else why it lacks them.
    public func limitation(_ capability: EngineCapabilities) -> String? {
        let missing = capability.subtracting(capabilities)
        guard !missing.isEmpty else { return nil }
        return missing.elements.map { limitations[$0] ?? "\(engineName) lacks \($0.names.joined())" }.joined(separator: "; ")
    }
}
