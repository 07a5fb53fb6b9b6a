import Foundation
import HybridBase

/// Decisions and dialogs an engine view hands to its owner. Every method has a safe default.
@MainActor
public protocol WebEngineDelegate: AnyObject {
    /// Allow or cancel a navigation. Default: allow.
    func engine(_ engine: any WebEngine, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy
    /// Allow, cancel or download a response. Default: allow what the engine can show, else download
    /// (which ``engine(_:decideDownload:)`` cancels by default).
    func engine(_ engine: any WebEngine, decidePolicyFor response: NavigationResponse) async -> NavigationResponsePolicy
    /// Present a script dialog; `completion` must be answered (it answers itself if dropped).
    /// Default: the safe default at once.
    func engine(_ engine: any WebEngine, runScriptDialog completion: ScriptDialogCompletion)
    /// The page asked to close its window (`window.close()`, where the engine lets a script close
    /// it). The engine stays open: closing it is the owner's call. Reported by WKWebView
    /// (`webViewDidClose`) and WebKitGTK (`close`) before anything happens; by Blink only after
    /// Chromium discarded the page itself (then followed by a ``TerminationReason/closedByPage``
    /// termination; see ``EngineCapabilities/windowCloseRequests``). Default: nothing.
    func engineRequestsClose(_ engine: any WebEngine)
    /// Grant or refuse a page's permission request. Default: deny.
    func engine(_ engine: any WebEngine, decidePermission request: PermissionRequest) async -> PermissionDecision
    /// Choose where a download goes, or cancel it. Default: cancel.
    func engine(_ engine: any WebEngine, decideDownload download: Download) async -> DownloadDecision
    /// A decided download progressed, finished, failed or was cancelled. Default: nothing.
    func engine(_ engine: any WebEngine, download id: String, didChange event: DownloadEvent)
    /// Choose files for a page's file picker; an empty answer chooses none. Default: none.
    func engine(_ engine: any WebEngine, chooseFiles request: FileChooserRequest) async -> [URL]
}

extension WebEngineDelegate {
    /// Allows every navigation (``EngineDefaults``).
    public func engine(_ engine: any WebEngine, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        EngineDefaults.policy(for: action)
    }
    /// Allows a response the engine can render (``NavigationResponse/canShowMIMEType``) and makes an
    /// attachment or any other a download, which the download decision cancels unless placed (``EngineDefaults``).
    public func engine(_ engine: any WebEngine, decidePolicyFor response: NavigationResponse) async -> NavigationResponsePolicy {
        EngineDefaults.policy(for: response)
    }
    /// Answers the dialog with its safe default at once (``ScriptDialogResult/safeDefault(for:)``).
    public func engine(_ engine: any WebEngine, runScriptDialog completion: ScriptDialogCompletion) {
        completion.completeWithSafeDefault()
    }
    /// Does nothing: the engine stays open until its owner closes it.
    public func engineRequestsClose(_ engine: any WebEngine) {}
    /// Denies (``EngineDefaults/permission``).
    public func engine(_ engine: any WebEngine, decidePermission request: PermissionRequest) async -> PermissionDecision {
        EngineDefaults.permission
    }
    /// Cancels (``EngineDefaults/download``).
    public func engine(_ engine: any WebEngine, decideDownload download: Download) async -> DownloadDecision {
        EngineDefaults.download
    }
    /// Does nothing.
    public func engine(_ engine: any WebEngine, download id: String, didChange event: DownloadEvent) {}
    /// Chooses no file.
    public func engine(_ engine: any WebEngine, chooseFiles request: FileChooserRequest) async -> [URL] { [] }
}

/// The seam: the fewest verbs that every engine (WebKitGTK, WKWebView, Blink) can honour.
/// Everything else in HybridKit is built on top of these, once, in HybridCore.
///
/// All members run on the main actor: every engine lives on its UI thread.
@MainActor
public protocol WebEngine: EngineView {
    /// Who decides navigations and answers dialogs; adapters hold it weakly. With none, the safe
    /// defaults of ``WebEngineDelegate`` apply.
    var delegate: (any WebEngineDelegate)? { get set }

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

    // MARK: Snapshot and closing
    /// PNG data of the visible page.
    func snapshot() async throws -> Data
    /// Tears the view down. Pending script calls fail with `.closed`, open dialogs get their safe
    /// default, no callback reaches the owner afterwards. Idempotent.
    func close()
}

extension WebEngine {
    /// Evaluates `script` in the page's world.
    /// - Returns: The script's completion value, as JSON.
    /// - Throws: `HybridError.engine(.javaScript)` with the exception's message.
    public func evaluate(_ script: String) async throws -> JSONValue { try await evaluate(script, in: .page) }
    /// Runs `body` as an async function in the page's world with `arguments` as its parameters.
    /// - Returns: What the Promise resolved to, as JSON.
    /// - Throws: `HybridError.engine(.javaScript)` when it throws or rejects.
    public func callAsync(_ body: String, arguments: [String: JSONValue] = [:]) async throws -> JSONValue {
        try await callAsync(body, arguments: arguments, in: .page)
    }
    /// Loads `url` with a plain `GET`.
    public func load(_ url: URL) { load(EngineRequest(url: url)) }
}

/// Creates engine views that share processes and a session (a WKProcessPool + WKWebsiteDataStore,
/// a WebKitWebContext + WebKitNetworkSession, a Chromium browser + profile).
@MainActor
public protocol WebEngineProvider: AnyObject {
    /// The engine's name (`webkit` — WebKitGTK on Linux, WKWebView on Apple platforms — or `blink`), as its views report it.
    var engineName: String { get }
    /// What the engine can do; HybridCore's policies read it (bridge transport, engine choice).
    var capabilities: EngineCapabilities { get }
    /// Why each capability the engine lacks is missing, in a sentence (tests print it when they
    /// skip; docs/engines.md is checked against it). A lacking capability with no entry here is
    /// reported with a generic reason.
    var limitations: [EngineCapabilities: String] { get }
    /// The shared cookie store of every view this provider makes.
    var cookieStore: any EngineCookieStore { get }
    /// Creates a view that shares this provider's processes, session and cookie store.
    /// - Parameter configuration: The scripts, handlers, schemes and media policy the view is fixed with.
    /// - Returns: A new engine view, not yet showing anything.
    /// - Throws: `HybridError.engine(.unavailable)` when the engine cannot create a view (its
    ///   browser cannot be started, for example).
    func makeEngine(_ configuration: EngineConfiguration) throws -> any WebEngine
    /// The loopback origin (`http://127.0.0.1:PORT`) at which this provider's views serve the
    /// bridge's byte channel (``BridgeByteChannel``) to their pages, for an engine that cannot serve
    /// its custom scheme to `fetch`; `nil` (the default): the channel's custom scheme, or none.
    var byteChannelOrigin: String? { get }
}

extension WebEngineProvider {
    /// No entries: an engine that lists none gets a generic reason for every missing capability.
    public var limitations: [EngineCapabilities: String] { [:] }

    /// `nil`: the byte channel, where there is one, is the engine's custom scheme.
    public var byteChannelOrigin: String? { nil }

    /// `nil` when the engine has every capability in `capability`, else why it lacks them.
    public func limitation(_ capability: EngineCapabilities) -> String? {
        let missing = capability.subtracting(capabilities)
        guard !missing.isEmpty else { return nil }
        return missing.elements.map { limitations[$0] ?? "\(engineName) lacks \($0.names.joined())" }.joined(separator: "; ")
    }
}
