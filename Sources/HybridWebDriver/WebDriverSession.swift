import Foundation
import HybridCore

/// What a listener's session factory gives the endpoint for a new session: the view, made with
/// ``HybridWebViewConfiguration/allowsAutomation``, and what to do when the session ends.
@MainActor
public struct WebDriverSessionContent {
    /// The container the session drives (it may already be loading its first page).
    public var view: HybridWebView
    /// Runs once when the session ends (the view is closed first).
    public var onEnd: @MainActor () -> Void

    /// A session's view and its clean-up.
    public init(view: HybridWebView, onEnd: @escaping @MainActor () -> Void = {}) {
        self.view = view
        self.onEnd = onEnd
    }
}

/// One WebDriver session: one ``HybridWebView``, its timeouts, the frame it is switched to, the
/// element ids it handed out and the dialog that is open. The session is the view's delegate, so
/// the page's dialogs come through the container's dialog path to the test.
@MainActor
final class WebDriverSession: HybridWebViewDelegate {
    let id: String
    let view: HybridWebView
    let capabilities: WebDriverCapabilities
    var timeouts: WebDriverTimeouts
    /// The path of frame element ids from the top document to the current frame.
    var frames: [String] = []
    /// Every element id handed to the client: an id the page no longer knows is stale, any other is unknown.
    var issued: Set<String> = []
    /// The dialog the page opened and the test has not answered.
    var dialog: ScriptDialogCompletion?
    /// Text for an open `prompt` (Send Alert Text).
    var promptText: String?
    private var dialogWaiters: [Int: @MainActor () -> Void] = [:]
    private var nextWaiter = 0
    private let onEnd: @MainActor () -> Void
    private(set) var ended = false

    init(id: String, content: WebDriverSessionContent, capabilities: WebDriverCapabilities) {
        self.id = id
        view = content.view
        onEnd = content.onEnd
        self.capabilities = capabilities
        timeouts = capabilities.timeouts
        view.delegate = self
    }

    /// The single window's handle.
    var windowHandle: String { "hybrid-\(id)" }

    /// Closes the view and runs the listener's clean-up, once.
    func end() {
        guard !ended else { return }
        ended = true
        dialog?.completeWithSafeDefault()
        dialog = nil
        view.close()
        onEnd()
    }

    // MARK: Dialogs through the container

    func webView(_ webView: HybridWebView, runDialog completion: ScriptDialogCompletion) {
        dialog?.completeWithSafeDefault()
        dialog = completion
        promptText = nil
        for waiter in dialogWaiters.values { waiter() }
    }

    /// The open dialog, if the page still waits for it.
    var openDialog: ScriptDialogCompletion? {
        if dialog?.isCompleted == true { dialog = nil }
        return dialog
    }

    func whenDialogOpens(_ action: @escaping @MainActor () -> Void) -> Int {
        nextWaiter += 1
        dialogWaiters[nextWaiter] = action
        return nextWaiter
    }

    func removeDialogWaiter(_ token: Int) { dialogWaiters[token] = nil }

    /// The standard's "handle any user prompts" (§16.3): answers an open dialog as the session's
    /// `unhandledPromptBehavior` says, and fails the command when it says to notify.
    func handleUserPrompts() throws {
        guard let open = openDialog else { return }
        let text = open.dialog.message
        let notify = WebDriverError(.unexpectedAlertOpen, "a \(open.dialog.kind.rawValue) is open: \(text)", data: ["text": .string(text)])
        switch capabilities.promptBehavior {
        case .ignore: throw notify
        case .accept, .acceptAndNotify: open.complete(.accepted())
        case .dismiss, .dismissAndNotify: open.complete(.cancelled)
        }
        dialog = nil
        if capabilities.promptBehavior == .acceptAndNotify || capabilities.promptBehavior == .dismissAndNotify { throw notify }
    }

    // MARK: Scripts in the page

    /// Runs atom `command` in the current frame; a dialog that opens meanwhile ends the wait.
    /// - Throws: the atom's W3C error, `script timeout`, or the engine's error.
    func atom(_ command: String, _ arguments: [String: JSONValue] = [:], script: String? = nil,
              timeout: Int? = nil) async throws -> AtomOutcome {
        var arguments = arguments
        arguments["frames"] = .array(frames.map { .string($0) })
        let body = try WebDriverAtoms.body(script: script)
        let engine = view.engine
        let limit = timeout ?? timeouts.script
        let outcome = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<AtomOutcome, any Error>) in
            let first = FirstOutcome(continuation)
            let waiter = whenDialogOpens { first.resume(.success(.dialogOpened)) }
            Task { @MainActor in
                do {
                    let value = try await engine.callAsync(body, arguments: ["command": .string(command), "args": .object(arguments)], in: .page)
                    first.resume(.success(.value(value)))
                } catch {
                    first.resume(.failure(error))
                }
            }
            var timer: Task<Void, Never>?
            if let limit {
                timer = Task { @MainActor in
                    try? await Task.sleep(nanoseconds: UInt64(limit) * 1_000_000)
                    first.resume(.failure(WebDriverError(.scriptTimeout, "the script did not finish within \(limit) ms")))
                }
            }
            first.onFinish = { [weak self] in
                self?.removeDialogWaiter(waiter)
                timer?.cancel()
            }
        }
        guard case .value(let reply) = outcome else { return outcome }
        if reply["ok"]?.boolValue == true { return .value(reply["value"] ?? .null) }
        let message = reply["message"]?.stringValue ?? ""
        let code = reply["error"]?.stringValue ?? "javascript error"
        if code == "unknown element" {
            throw issued.contains(message)
                ? WebDriverError(.staleElementReference, "element \(message) belongs to a document that is gone")
                : WebDriverError(.noSuchElement, "no element has the id \(message)")
        }
        throw WebDriverError(WebDriverError.Code(rawValue: code) ?? .javaScriptError, message)
    }

    /// The atom's value; a dialog that opened instead is `unexpected alert open` (for commands
    /// that run no page code of their own).
    func value(_ command: String, _ arguments: [String: JSONValue] = [:]) async throws -> JSONValue {
        switch try await atom(command, arguments) {
        case .value(let value): return value
        case .dialogOpened:
            let text = openDialog?.dialog.message ?? ""
            throw WebDriverError(.unexpectedAlertOpen, "a dialog opened: \(text)", data: ["text": .string(text)])
        }
    }

    /// Records the element ids in `value` (a reference or an array of them) as handed out.
    func issue(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let items): for item in items { _ = issue(item) }
        case .object(let object):
            if let id = object[WebDriverAtoms.elementKey]?.stringValue { issued.insert(id) } else { object.values.forEach { _ = issue($0) } }
        default: break
        }
        return value
    }
}
