import Foundation
import HybridBase

/// One engine view's raw verbs: what ``ContractEngine`` needs from an engine, and nothing that
/// decides anything.
///
/// A driver translates. It never checks whether the view is closed or its content process gone
/// (the contract does, before every verb), never keeps pending calls (each verb takes a completion
/// the contract tracks), never answers a question itself (it hands every navigation, response,
/// dialog and message to its ``host`` with a reply closure). An `if` about behaviour in a driver
/// means the contract lacks a verb or a capability: add it there.
///
/// The verbs run on the main actor, only while the view is open (and, for the script verbs, only
/// while its content process lives); ``tearDown()`` is called once, last.
@MainActor
public protocol EngineDriver: EngineView {
    /// Where the driver reports events, questions and messages. Set by ``ContractEngine`` before
    /// any verb; drivers hold it weakly.
    var host: (any EngineDriverHost)? { get set }

    // MARK: Scripts
    /// Evaluates `script` in `world` and calls `completion` exactly once with its value as JSON or
    /// its error (`HybridError.engine(.javaScript)` for an exception).
    func evaluate(_ script: String, in world: ScriptWorld, completion: @escaping @MainActor @Sendable (Result<JSONValue, any Error>) -> Void)
    /// Runs `body` as an async function with `arguments` as its parameters and calls `completion`
    /// exactly once with what its Promise settled to.
    func callAsync(_ body: String, arguments: [String: JSONValue], in world: ScriptWorld,
                   completion: @escaping @MainActor @Sendable (Result<JSONValue, any Error>) -> Void)
    /// Takes a PNG of the visible page and calls `completion` exactly once.
    func snapshot(completion: @escaping @MainActor @Sendable (Result<Data, any Error>) -> Void)

    /// Releases everything native: called once, when the view closes, after the contract failed
    /// its pending calls and answered its dialogs. Nothing may reach the host afterwards.
    func tearDown()
}

/// What a driver reports to, and asks of, the engine contract (``ContractEngine``).
///
/// Every question comes with its reply closure; the contract calls it exactly once, whatever the
/// delegate does (answers late, drops the question, or the view closes first).
@MainActor
public protocol EngineDriverHost: AnyObject {
    /// An event as the engine reported it (loads, URL, title, progress, back-forward, console).
    /// Termination is not an event here: report it with ``contentProcessTerminated(_:)``.
    func report(_ event: EngineEvent)
    /// The content process ended.
    func contentProcessTerminated(_ reason: TerminationReason)
    /// A navigation waits for a decision; `decide` is called exactly once.
    func navigationRequested(_ action: NavigationAction, decide: @escaping @MainActor (NavigationDisposition) -> Void)
    /// A navigation the engine cannot hold back (a page's request for a new window, a scheme the
    /// engine hands elsewhere): the delegate is told, and a redirect it answers is still loaded.
    func navigationAnnounced(_ action: NavigationAction)
    /// A response waits for a decision; `decide` is called exactly once (``NavigationResponsePolicy/download``
    /// only when the engine has ``EngineCapabilities/downloads``).
    func responseArrived(_ response: NavigationResponse, decide: @escaping @MainActor (NavigationResponsePolicy) -> Void)
    /// The page opened a script dialog; `answer` is called exactly once.
    func dialogOpened(_ dialog: ScriptDialog, answer: @escaping @MainActor (ScriptDialogResult) -> Void)
    /// The page posted to the handler at `index` in the configuration's ``EngineConfiguration/messageHandlers``.
    /// - Parameter reply: For a handler that replies: called exactly once with the reply. `nil` for
    ///   a handler that does not reply.
    func messagePosted(_ message: ScriptMessage, toHandlerAt index: Int, reply: (@MainActor (ScriptReply) -> Void)?)
    /// The page asked to close its window (`window.close()`).
    func closeRequested()

    // MARK: Data plane (downloads, file pickers, permissions)
    /// A page asked for permissions; `decide` is called exactly once (deny when the view closes
    /// or its process dies first). Only engines with ``EngineCapabilities/permissionPrompts`` ask.
    func permissionRequested(_ request: PermissionRequest, decide: @escaping @MainActor (PermissionDecision) -> Void)
    /// A download began; `decide` is called exactly once (cancel when the view closes first).
    func downloadStarted(_ download: Download, decide: @escaping @MainActor (DownloadDecision) -> Void)
    /// A decided download progressed, finished, failed or was cancelled.
    func downloadChanged(_ id: String, _ event: DownloadEvent)
    /// The page opened a file picker; `answer` is called exactly once with the chosen files (none
    /// when the view closes or its process dies first).
    func fileChooserOpened(_ request: FileChooserRequest, answer: @escaping @MainActor ([URL]) -> Void)
    /// A frame threw an uncaught error or left a rejection unhandled, as the engine reports it: for
    /// an engine whose isolated worlds do not hear the page's `error` events (Blink).
    func scriptErrorThrown(_ report: ScriptErrorReport)
}

/// What the contract tells a driver to do with a navigation it asked about.
public enum NavigationDisposition: Sendable, Equatable {
    /// Let it go ahead.
    case proceed
    /// Stop it (nothing loads; a new window is never opened by the engine).
    case ignore
    /// Let it go ahead with these header fields added or replaced (only for an engine with
    /// ``EngineCapabilities/amendsNavigationRequests``).
    case proceedAddingHeaders([String: String])
}
