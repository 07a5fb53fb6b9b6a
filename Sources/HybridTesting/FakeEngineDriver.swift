import Foundation
import HybridCore

/// A driver with no engine behind it: tests play the engine's part and read what the contract
/// asked of it, so an app's bridge modules, delegates and navigation rules run without a browser.
///
/// Put it under the real contract with ``FakeEngineProvider`` (or
/// `ContractEngine(driver:messageHandlers:)`): every rule the real engines follow (closed and
/// terminated state, exactly-once calls and dialogs, default answers, redirects) applies to it too.
///
/// ```swift
/// let provider = FakeEngineProvider()
/// let view = try HybridWebView(provider: provider, configuration: configuration)
/// let page = provider.drivers[0]
/// page.runLoad(URL(string: "https://m.example.com/")!, title: "Home")
/// let decision = await page.requestNavigation(to: URL(string: "https://m.example.com/next")!)
/// ```
@MainActor
public final class FakeEngineDriver: EngineDriver {
    /// `fake`.
    public let engineName = "fake"
    /// What the fake claims to be able to do (bridge transport, pool and skip decisions read it).
    public let capabilities: EngineCapabilities
    /// The contract this driver reports to.
    public weak var host: (any EngineDriverHost)?
    /// The configuration the view was created with.
    public let configuration: EngineConfiguration

    // MARK: What the contract asked

    /// Every verb the contract passed on, in order: `load URL`, `html`, `blank` (empty HTML),
    /// `simulated URL`, `stop`, `reload`, `back`, `forward`, `terminate`, `visible BOOL`,
    /// `parked BOOL`, `teardown`.
    public private(set) var calls: [String] = []
    /// Every evaluated script (and async function body) with its world, in order.
    public private(set) var evaluated: [(script: String, world: ScriptWorld)] = []
    /// What a script containing a key evaluates to (first match); others evaluate to `null`.
    public var results: [String: JSONValue] = [:]
    /// When set, script calls and snapshots wait until the test settles them
    /// (``settleScriptCalls(with:)``), as a busy or dying page would leave them.
    public var holdsScriptCalls = false
    /// What the fake engine reports of its content process's responsiveness without a probe;
    /// `nil` (the default): it does not track it, as an engine without such a report.
    public var isContentProcessResponsive: Bool?
    /// ``tearDown()`` ran.
    public private(set) var isTornDown = false

    private var heldCalls: [@MainActor (Result<JSONValue, any Error>) -> Void] = []

    // MARK: Page state, set by the test

    /// The URL the page reports.
    public var url: URL?
    /// The title the page reports.
    public var title: String?
    /// Whether the page reports a load in progress.
    public var isLoading = false
    /// The progress the page reports.
    public var estimatedProgress = 0.0
    /// The back-forward list the page reports.
    public var backForwardList = BackForwardList()
    /// There is an entry to go back to (from ``backForwardList``).
    public var canGoBack: Bool { !backForwardList.back.isEmpty }
    /// There is an entry to go forward to (from ``backForwardList``).
    public var canGoForward: Bool { !backForwardList.forward.isEmpty }
    /// The cookie store the view reports (in memory unless the test gives another).
    public var cookieStore: any EngineCookieStore

    /// A fake with the capabilities a WebKit engine has for the bridge (isolated worlds, message
    /// replies, scheme request bodies) unless told otherwise.
    /// - Parameters:
    ///   - capabilities: What the fake claims.
    ///   - configuration: The view's configuration (its message handlers are the ones the page can post to).
    ///   - cookieStore: The view's cookie store.
    public init(capabilities: EngineCapabilities = [.scriptWorlds, .messageReplies, .schemeRequestBodies],
                configuration: EngineConfiguration = EngineConfiguration(),
                cookieStore: any EngineCookieStore = MemoryEngineCookieStore()) {
        self.capabilities = capabilities
        self.configuration = configuration
        self.cookieStore = cookieStore
    }

    // MARK: EngineDriver verbs (called by the contract)

    /// Records `load URL`.
    public func load(_ request: EngineRequest) { calls.append("load \(request.url.absoluteString)") }
    /// Records `html`, or `blank` for an empty document.
    public func loadHTML(_ html: String, baseURL: URL?) { calls.append(html.isEmpty ? "blank" : "html") }
    /// Records `simulated URL`.
    public func loadSimulatedResponse(_ data: Data, mimeType: String, encoding: String?, for url: URL) {
        calls.append("simulated \(url.absoluteString)")
    }
    /// Records `stop`.
    public func stopLoading() { calls.append("stop") }
    /// Records `reload`.
    public func reload() { calls.append("reload") }
    /// Records `back`.
    public func goBack() { calls.append("back") }
    /// Records `forward`.
    public func goForward() { calls.append("forward") }

    /// Records the script; answers from ``results`` (or holds the call, ``holdsScriptCalls``).
    public func evaluate(_ script: String, in world: ScriptWorld,
                         completion: @escaping @MainActor @Sendable (Result<JSONValue, any Error>) -> Void) {
        evaluated.append((script, world))
        answer(script, completion)
    }

    /// Records the body as an evaluated script; answers as ``evaluate(_:in:completion:)`` does.
    public func callAsync(_ body: String, arguments: [String: JSONValue], in world: ScriptWorld,
                          completion: @escaping @MainActor @Sendable (Result<JSONValue, any Error>) -> Void) {
        evaluated.append((body, world))
        answer(body, completion)
    }

    /// Answers a PNG signature (or holds the call, ``holdsScriptCalls``).
    public func snapshot(completion: @escaping @MainActor @Sendable (Result<Data, any Error>) -> Void) {
        let png = Data([0x89, 0x50, 0x4E, 0x47])
        if holdsScriptCalls {
            heldCalls.append { result in completion(result.map { _ in png }) }
        } else {
            completion(.success(png))
        }
    }

    /// Records `terminate` and reports the termination as an engine does (`terminatedByClient`).
    public func terminateContentProcess() {
        calls.append("terminate")
        host?.contentProcessTerminated(.terminatedByClient)
    }

    /// Records `visible BOOL`.
    public func setVisible(_ visible: Bool) { calls.append("visible \(visible)") }
    /// Records `parked BOOL`.
    public func setParked(_ parked: Bool) { calls.append("parked \(parked)") }
    /// Records `teardown`; nothing reaches the contract afterwards.
    public func tearDown() {
        calls.append("teardown")
        isTornDown = true
        host = nil
    }

    private func answer(_ script: String, _ completion: @escaping @MainActor @Sendable (Result<JSONValue, any Error>) -> Void) {
        if holdsScriptCalls {
            heldCalls.append(completion)
        } else {
            completion(.success(results.first { script.contains($0.key) }?.value ?? .null))
        }
    }

    // MARK: Playing the engine (called by the test)

    /// Script calls and snapshots the fake holds (``holdsScriptCalls``).
    public var heldCallCount: Int { heldCalls.count }

    /// Settles every held call with `result`, as an engine's late answer would (a call the
    /// contract already failed ignores it).
    /// - Parameter result: The value or error each held call gets.
    public func settleScriptCalls(with result: Result<JSONValue, any Error>) {
        let held = heldCalls
        heldCalls.removeAll()
        for settle in held { settle(result) }
    }

    /// Reports `event` as the engine would. A ``EngineEvent/contentProcessTerminated(_:)`` goes
    /// through ``terminate(_:)``, a ``EngineEvent/scriptError(_:)`` through the host's
    /// ``EngineDriverHost/scriptErrorThrown(_:)`` (as Blink's driver reports page errors).
    /// - Parameter event: The event to report.
    public func emit(_ event: EngineEvent) {
        if case .contentProcessTerminated(let reason) = event { return terminate(reason) }
        if case .scriptError(let report) = event { return host?.scriptErrorThrown(report) ?? () }
        host?.report(event)
    }

    /// Reports that the content process died.
    /// - Parameter reason: Why it died.
    public func terminate(_ reason: TerminationReason) { host?.contentProcessTerminated(reason) }

    /// A new document at `url` was committed (the URL is set first).
    /// - Parameter url: The document's URL.
    public func commit(_ url: URL) {
        self.url = url
        emit(.loadCommitted(url))
    }

    /// A load of `url` from start to finish, as an engine reports it: started, half way, committed,
    /// finished, then the title.
    /// - Parameters:
    ///   - url: The page loaded.
    ///   - title: The title it sets, if any.
    public func runLoad(_ url: URL, title: String? = nil) {
        self.url = url
        emit(.loadStarted(url))
        emit(.progressChanged(0.5))
        emit(.loadCommitted(url))
        self.title = title
        emit(.loadFinished(url))
        if let title { emit(.titleChanged(title)) }
    }

    /// Asks the contract about a navigation and waits for its decision.
    /// - Parameter action: The navigation the page or the app started.
    /// - Returns: What the engine would be told to do.
    public func requestNavigation(_ action: NavigationAction) async -> NavigationDisposition {
        guard let host else { return .ignore }
        return await withCheckedContinuation { continuation in
            host.navigationRequested(action) { continuation.resume(returning: $0) }
        }
    }

    /// Asks the contract about a main-frame link to `url` (no gesture, same window).
    /// - Parameter url: Where the link goes.
    /// - Returns: What the engine would be told to do.
    public func requestNavigation(to url: URL) async -> NavigationDisposition {
        await requestNavigation(NavigationAction(request: EngineRequest(url: url), type: .linkActivated, isMainFrame: true))
    }

    /// Tells the contract of a navigation it cannot hold back (a page's request for a new window).
    /// - Parameter action: The navigation.
    public func announceNavigation(_ action: NavigationAction) { host?.navigationAnnounced(action) }

    /// Asks the contract about a response and waits for its decision.
    /// - Parameter response: The response about to be shown.
    /// - Returns: What the engine would be told to do.
    public func deliverResponse(_ response: NavigationResponse) async -> NavigationResponsePolicy {
        guard let host else { return .cancel }
        return await withCheckedContinuation { continuation in
            host.responseArrived(response) { continuation.resume(returning: $0) }
        }
    }

    /// Opens a script dialog; `answer` gets the answer the page would (exactly once, the contract promises).
    /// - Parameters:
    ///   - dialog: The dialog the page opened.
    ///   - answer: Receives the answer.
    public func openDialog(_ dialog: ScriptDialog, answer: @escaping @MainActor (ScriptDialogResult) -> Void) {
        guard let host else { return answer(.safeDefault(for: dialog.kind)) }
        host.dialogOpened(dialog, answer: answer)
    }

    /// Posts `body` to the handler named `name` (in `world`) and waits for its reply.
    /// - Parameters:
    ///   - body: The posted value (a string, or other JSON as text).
    ///   - name: The handler's name.
    ///   - world: The handler's world.
    /// - Returns: The reply; `nil` for a handler that does not reply.
    @discardableResult
    public func post(_ body: ScriptMessage.Body, to name: String, in world: ScriptWorld? = nil) async -> ScriptReply? {
        let index = configuration.messageHandlers.firstIndex { $0.name == name && (world == nil || $0.world == world) }
        let message = ScriptMessage(name: name, body: body)
        guard let host else { return .error("no handler for \(name)") }
        guard let index else {
            host.messagePosted(message, toHandlerAt: -1, reply: nil)
            return .error("no handler for \(name)")
        }
        guard case .reply = configuration.messageHandlers[index].kind else {
            host.messagePosted(message, toHandlerAt: index, reply: nil)
            return nil
        }
        return await withCheckedContinuation { continuation in
            host.messagePosted(message, toHandlerAt: index) { continuation.resume(returning: $0) }
        }
    }

    /// The page asks to close its window.
    public func requestClose() { host?.closeRequested() }
}
