import Foundation
import HybridBase

/// The engine contract, written once: a ``WebEngine`` over any ``EngineDriver``.
///
/// It holds what every engine must honour the same way:
/// - **Closed and terminated state**, checked before every verb: after ``close()`` verbs do
///   nothing and state reads are empty; after the content process died, script calls and
///   snapshots fail with `contentProcessTerminated` until a load or reload starts a new one.
/// - **Pending calls** (scripts, snapshots) that settle exactly once: closing fails them with
///   `closed`, a dying process with `contentProcessTerminated`, in either order with the driver's
///   own late answer (see ``EngineHeuristics/terminationGrace``).
/// - **Dialogs**, permission requests, downloads and file pickers answered exactly once: by the delegate, with the safe default when there is no
///   delegate or it drops the dialog, and with the safe default for any still open when the view
///   closes or its process dies.
/// - **Default answers** (``EngineDefaults``) when no delegate decides, **redirects** (a
///   `.redirect` policy is a cancel and a new load, or the same request with added headers where
///   the engine ``EngineCapabilities/amendsNavigationRequests``), **no window** ever opened by the
///   engine itself, and downloads cancelled on an engine without ``EngineCapabilities/downloads``.
/// - **Event order**: observers hear events in the order the driver reported them, oldest
///   subscription first; a termination is reported after its pending calls failed and its dialogs
///   were answered; nothing reaches observers or the delegate after ``close()``.
///
/// Each engine product makes one with its driver (`GTKWebEngine` is `ContractEngine<GTKDriver>`);
/// `HybridTesting` makes one with a fake driver.
@MainActor
public final class ContractEngine<Driver: EngineDriver>: WebEngine, EngineDriverHost {
    /// The engine's own verbs (for what only that engine offers: its native view, its window).
    public let driver: Driver
    /// The handlers the view was created with (``EngineDriverHost/messagePosted(_:toHandlerAt:reply:)``'s indices).
    public let messageHandlers: [ScriptMessageHandler]
    /// Decides navigations and answers dialogs; held weakly. With none, ``EngineDefaults`` apply.
    public weak var delegate: (any WebEngineDelegate)?
    /// ``close()`` was called.
    public private(set) var isClosed = false
    /// Why the content process died, until a load or reload starts a new one.
    public private(set) var terminationReason: TerminationReason?

    private let observers = EngineObservers()
    private let calls = EngineCallTable()
    private var openDialogs: [WeakCompletion] = []
    /// Permission, download and file-picker questions not answered yet (ContractEngine+Data.swift).
    let openRequests = OpenEngineRequests()

    /// Takes `driver` and becomes its host.
    /// - Parameters:
    ///   - driver: The engine view's raw verbs, just created.
    ///   - messageHandlers: The handlers of the configuration the driver was created with.
    public init(driver: Driver, messageHandlers: [ScriptMessageHandler]) {
        self.driver = driver
        self.messageHandlers = messageHandlers
        driver.host = self
    }

    isolated deinit { close() }

    /// The driver's engine name.
    public var engineName: String { driver.engineName }
    /// The driver's capabilities.
    public var capabilities: EngineCapabilities { driver.capabilities }

    // MARK: Observation

    /// Calls `handler` for every event, in order, until the token is cancelled or the view closes.
    public func observe(_ handler: @escaping @MainActor (EngineEvent) -> Void) -> ObservationToken {
        observers.add(handler)
    }

    // MARK: Loading

    /// Loads `request`; a view whose content process died gets a new one.
    public func load(_ request: EngineRequest) {
        guard beginLoad() else { return }
        driver.load(request)
    }

    /// Loads `html` as if it came from `baseURL`.
    public func loadHTML(_ html: String, baseURL: URL?) {
        guard beginLoad() else { return }
        driver.loadHTML(html, baseURL: baseURL)
    }

    /// Shows `data` as the response for `url`.
    public func loadSimulatedResponse(_ data: Data, mimeType: String, encoding: String?, for url: URL) {
        guard beginLoad() else { return }
        driver.loadSimulatedResponse(data, mimeType: mimeType, encoding: encoding, for: url)
    }

    /// Reloads the page; after a content-process death this starts a new process.
    public func reload() {
        guard beginLoad() else { return }
        driver.reload()
    }

    /// Stops the current load.
    public func stopLoading() { if !isClosed { driver.stopLoading() } }
    /// Goes one entry back, if there is one.
    public func goBack() { if !isClosed { driver.goBack() } }
    /// Goes one entry forward, if there is one.
    public func goForward() { if !isClosed { driver.goForward() } }

    /// A load starts a new content process: the view is usable again. `false` once closed.
    private func beginLoad() -> Bool {
        guard !isClosed else { return false }
        terminationReason = nil
        return true
    }

    // MARK: State

    /// The current URL; `nil` once closed.
    public var url: URL? { isClosed ? nil : driver.url }
    /// The current title; `nil` when empty or once closed.
    public var title: String? {
        guard !isClosed, let title = driver.title, !title.isEmpty else { return nil }
        return title
    }
    /// A load is in progress (never once closed).
    public var isLoading: Bool { !isClosed && driver.isLoading }
    /// The engine's progress estimate; 0 once closed.
    public var estimatedProgress: Double { isClosed ? 0 : driver.estimatedProgress }
    /// There is an entry to go back to.
    public var canGoBack: Bool { !isClosed && driver.canGoBack }
    /// There is an entry to go forward to.
    public var canGoForward: Bool { !isClosed && driver.canGoForward }
    /// The back-forward list; empty once closed.
    public var backForwardList: BackForwardList { isClosed ? BackForwardList() : driver.backForwardList }
    /// Not closed, and the content process has not died since the last load.
    public var isAlive: Bool { !isClosed && terminationReason == nil }
    /// The driver's report while alive; `false` once closed or dead.
    public var isContentProcessResponsive: Bool? { isAlive ? driver.isContentProcessResponsive : false }

    // MARK: Scripts, snapshot

    /// Evaluates `script` in `world`.
    /// - Returns: The completion value as JSON.
    /// - Throws: `HybridError.engine(.javaScript)` when it throws; `.closed` or
    ///   `.contentProcessTerminated` when the view or its process goes first.
    public func evaluate(_ script: String, in world: ScriptWorld) async throws -> JSONValue {
        try checkUsable()
        return try await calls.track { done in driver.evaluate(script, in: world, completion: done) }
    }

    /// Runs `body` as an async function with `arguments` as its parameters.
    /// - Returns: What its Promise resolved to, as JSON.
    /// - Throws: `HybridError.engine(.javaScript)` when it throws or rejects; `.closed` or
    ///   `.contentProcessTerminated` when the view or its process goes first.
    public func callAsync(_ body: String, arguments: [String: JSONValue], in world: ScriptWorld) async throws -> JSONValue {
        try checkUsable()
        return try await calls.track { done in driver.callAsync(body, arguments: arguments, in: world, completion: done) }
    }

    /// PNG data of the visible page.
    /// - Throws: `HybridError.engine(.snapshotFailed)` when the engine makes no image; `.closed` or
    ///   `.contentProcessTerminated` when the view or its process goes first.
    public func snapshot() async throws -> Data {
        try checkUsable()
        return try await calls.track { done in driver.snapshot(completion: done) }
    }

    /// Script calls and snapshots not settled yet.
    public var pendingCallCount: Int { calls.count }

    private func checkUsable() throws {
        if isClosed { throw HybridError.engine(.closed) }
        if let terminationReason { throw HybridError.engine(.contentProcessTerminated(terminationReason)) }
    }

    // MARK: Cookies, process, host

    /// The driver's cookie store.
    public var cookieStore: any EngineCookieStore { driver.cookieStore }

    /// Ends the content process (while it lives); its termination is reported as any other.
    public func terminateContentProcess() {
        guard isAlive else { return }
        driver.terminateContentProcess()
    }

    /// Shows or hides the view.
    public func setVisible(_ visible: Bool) { if !isClosed { driver.setVisible(visible) } }
    /// Parks the view out of sight, or shows it again.
    public func setParked(_ parked: Bool) { if !isClosed { driver.setParked(parked) } }

    /// Tears the view down: marks it closed (so nothing that runs meanwhile sees it open), drops
    /// the observers, fails pending calls with `.closed`, answers open dialogs with their safe
    /// default, then lets the driver release the engine. Idempotent.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        observers.removeAll()
        calls.failAll(HybridError.engine(.closed))
        answerOpenDialogs()
        openRequests.answerAll(pageBoundOnly: false)
        driver.tearDown()
    }

    // MARK: EngineDriverHost

    /// Delivers `event` to the observers unless the view is closed.
    public func report(_ event: EngineEvent) {
        guard !isClosed else { return }
        observers.emit(event)
    }

    /// Reports ``EngineEvent/scriptError(_:)`` unless the view is closed.
    public func scriptErrorThrown(_ report: ScriptErrorReport) {
        guard !isClosed else { return }
        observers.emit(.scriptError(report))
    }

    /// Marks the process dead (once until the next load), fails the pending calls with the
    /// reason, answers open dialogs, then reports ``EngineEvent/contentProcessTerminated(_:)``.
    public func contentProcessTerminated(_ reason: TerminationReason) {
        guard !isClosed, terminationReason == nil else { return }
        terminationReason = reason
        calls.failAll(HybridError.engine(.contentProcessTerminated(reason)))
        answerOpenDialogs()
        openRequests.answerAll(pageBoundOnly: true)
        observers.emit(.contentProcessTerminated(reason))
    }

    /// Asks the delegate (or ``EngineDefaults``), then tells the driver: proceed, ignore, or (for a
    /// redirect) ignore and load the new request, or proceed with added headers when the engine can
    /// amend the request and it goes to the same URL. A new window is never opened by the engine.
    public func navigationRequested(_ action: NavigationAction, decide: @escaping @MainActor (NavigationDisposition) -> Void) {
        ImmediateTask.start { @MainActor [weak self] in
            guard let self, !self.isClosed else { return decide(.ignore) }
            let policy = await self.policy(for: action)
            guard !self.isClosed else { return decide(.ignore) }
            switch policy {
            case .allow where !action.targetsNewWindow:
                decide(.proceed)
            case .allow, .cancel:
                decide(.ignore)
            case .redirect(let url, let headers):
                if url.absoluteString == action.request.url.absoluteString, self.capabilities.contains(.amendsNavigationRequests) {
                    decide(.proceedAddingHeaders(headers))
                } else {
                    decide(.ignore)
                    self.load(Self.request(url, headers))
                }
            }
        }
    }

    /// Tells the delegate of a navigation that cannot wait; a redirect it answers is loaded.
    public func navigationAnnounced(_ action: NavigationAction) {
        ImmediateTask.start { @MainActor [weak self] in
            guard let self, !self.isClosed else { return }
            if case .redirect(let url, let headers) = await self.policy(for: action), !self.isClosed {
                self.load(Self.request(url, headers))
            }
        }
    }

    /// Asks the delegate (or ``EngineDefaults``); a download on an engine without downloads is cancelled.
    public func responseArrived(_ response: NavigationResponse, decide: @escaping @MainActor (NavigationResponsePolicy) -> Void) {
        ImmediateTask.start { @MainActor [weak self] in
            guard let self, !self.isClosed else { return decide(.cancel) }
            var policy = if let delegate = self.delegate {
                await delegate.engine(self, decidePolicyFor: response)
            } else {
                EngineDefaults.policy(for: response)
            }
            if self.isClosed || (policy == .download && !self.capabilities.contains(.downloads)) { policy = .cancel }
            decide(policy)
        }
    }

    /// Wraps `answer` in a ``ScriptDialogCompletion`` (page URL and title filled in when the driver
    /// left them out), keeps it to answer on close or termination, and hands it to the delegate;
    /// with no delegate, or a closed or dead view, it gets its safe default at once.
    public func dialogOpened(_ dialog: ScriptDialog, answer: @escaping @MainActor (ScriptDialogResult) -> Void) {
        var dialog = dialog
        if dialog.pageURL == nil { dialog.pageURL = url }
        if dialog.pageTitle == nil { dialog.pageTitle = title }
        let completion = ScriptDialogCompletion(dialog: dialog, answer: answer)
        guard isAlive, let delegate else {
            completion.completeWithSafeDefault()
            return
        }
        openDialogs.removeAll { $0.value?.isCompleted ?? true }
        openDialogs.append(WeakCompletion(completion))
        delegate.engine(self, runScriptDialog: completion)
    }

    /// Runs the handler at `index`: an answer known at once is replied before this returns; one
    /// still to be worked out is awaited in a task started at once. A closed or dead view, or an
    /// unknown handler, rejects the page's promise.
    public func messagePosted(_ message: ScriptMessage, toHandlerAt index: Int, reply: (@MainActor (ScriptReply) -> Void)?) {
        guard isAlive, messageHandlers.indices.contains(index) else {
            reply?(.error("no handler for \(message.name)"))
            return
        }
        switch messageHandlers[index].kind {
        case .reply(let answerer):
            guard let reply else { return }
            switch answerer(message) {
            case .now(let answer): reply(answer)
            case .later(let work): ImmediateTask.start { @MainActor in reply(await work()) }
            }
        case .noReply(let receive):
            receive(message)
            reply?(.json("null"))
        }
    }

    /// Tells the delegate the page asked to close its window; the view stays open.
    public func closeRequested() {
        guard !isClosed else { return }
        delegate?.engineRequestsClose(self)
    }

    // MARK: Helpers

    private func policy(for action: NavigationAction) async -> NavigationActionPolicy {
        guard let delegate else { return EngineDefaults.policy(for: action) }
        return await delegate.engine(self, decidePolicyFor: action)
    }

    private func answerOpenDialogs() {
        let dialogs = openDialogs
        openDialogs.removeAll()
        for dialog in dialogs { dialog.value?.completeWithSafeDefault() }
    }

    /// A redirect's request: a GET with the headers in name order.
    private static func request(_ url: URL, _ headers: [String: String]) -> EngineRequest {
        EngineRequest(url: url, headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }
}

/// An open dialog, held weakly: if the delegate drops it, it answers itself.
private final class WeakCompletion {
    package weak var value: ScriptDialogCompletion?
    package init(_ value: ScriptDialogCompletion) { self.value = value }
}
