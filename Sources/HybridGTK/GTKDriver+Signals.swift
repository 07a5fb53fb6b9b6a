import CHybridGTK
import CWebKitGTK
import Foundation
import HybridCore

// Signal thunks: C functions with each signal's exact signature. The last parameter is the
// boxed Swift handler (see GSignal.swift); all run on the main thread inside the GLib loop.
private typealias NotifyThunk = @convention(c) (gpointer?, gpointer?, gpointer?) -> Void
private typealias LoadChangedThunk = @convention(c) (gpointer?, WebKitLoadEvent, gpointer?) -> Void
private typealias LoadFailedThunk = @convention(c) (gpointer?, WebKitLoadEvent, UnsafePointer<CChar>?, UnsafeMutablePointer<GError>?, gpointer?) -> gboolean
private typealias TerminatedThunk = @convention(c) (gpointer?, WebKitWebProcessTerminationReason, gpointer?) -> Void
private typealias DecidePolicyThunk = @convention(c) (gpointer?, UnsafeMutablePointer<WebKitPolicyDecision>?, WebKitPolicyDecisionType, gpointer?) -> gboolean
private typealias DialogThunk = @convention(c) (gpointer?, OpaquePointer?, gpointer?) -> gboolean
private typealias CreateThunk = @convention(c) (gpointer?, OpaquePointer?, gpointer?) -> UnsafeMutablePointer<GtkWidget>?
private typealias ListChangedThunk = @convention(c) (gpointer?, gpointer?, gpointer?, gpointer?) -> Void
private typealias MessageReplyThunk = @convention(c) (gpointer?, OpaquePointer?, OpaquePointer?, gpointer?) -> gboolean
private typealias MessageThunk = @convention(c) (gpointer?, OpaquePointer?, gpointer?) -> Void

private typealias Weakly = Weak<GTKDriver>

private let notifyThunk: NotifyThunk = { _, _, data in
    onMain(data) { signalHandler($0, as: (@MainActor () -> Void).self)?() }
}
private let loadChangedThunk: LoadChangedThunk = { _, event, data in
    onMain(data) { signalHandler($0, as: Weakly.self)?.value?.loadChanged(event) }
}
private let loadFailedThunk: LoadFailedThunk = { _, _, uri, error, data in
    onMain((data, uri, error)) { signalHandler($0.0, as: Weakly.self)?.value?.loadFailed(uri: $0.1, error: $0.2) }
    return 0  // let WebKit show its error page
}
private let terminatedThunk: TerminatedThunk = { _, reason, data in
    onMain(data) { data in
        let mapped: TerminationReason = switch reason {
        case WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT: .exceededMemoryLimit
        case WEBKIT_WEB_PROCESS_TERMINATED_BY_API: .terminatedByClient
        default: .crashed
        }
        signalHandler(data, as: Weakly.self)?.value?.host?.contentProcessTerminated(mapped)
    }
}
private let decidePolicyThunk: DecidePolicyThunk = { _, decision, type, data in
    guard let decision else { return 0 }
    return onMain((data, decision)) { data, decision in
        guard let driver = signalHandler(data, as: Weakly.self)?.value else { return 0 }
        return driver.decidePolicy(decision, type: type) ? 1 : 0
    }
}
private let dialogThunk: DialogThunk = { _, dialog, data in
    guard let dialog else { return 0 }
    return onMain((data, dialog)) { data, dialog in
        guard let driver = signalHandler(data, as: Weakly.self)?.value else { return 0 }
        return driver.runDialog(dialog) ? 1 : 0
    }
}
/// New windows are the app's business (a new container): the delegate hears of the request and
/// WebKit never creates a window itself.
private let createThunk: CreateThunk = { _, action, data in
    guard let action else { return nil }
    onMain((data, action)) { data, action in
        signalHandler(data, as: Weakly.self)?.value?.newWindowRequested(action)
    }
    return nil
}
private let listChangedThunk: ListChangedThunk = { _, _, _, data in
    onMain(data) { data in
        guard let driver = signalHandler(data, as: Weakly.self)?.value else { return }
        driver.host?.report(.backForwardChanged(canGoBack: driver.canGoBack, canGoForward: driver.canGoForward))
    }
}
private typealias HandlerBox = (driver: Weakly, name: String, index: Int)

private let messageReplyThunk: MessageReplyThunk = { _, value, reply, data in
    guard let value, let reply else { return 0 }
    return onMain((data, value, reply)) { data, value, reply in
        guard let box = signalHandler(data, as: HandlerBox.self), let host = box.driver.value?.host else { return 0 }
        let message = ScriptMessage(name: box.name, body: JSCConversion.messageBody(value))
        // Keep the reply and the value's JS context alive until the contract answers (at once or later).
        webkit_script_message_reply_ref(reply)
        let context = jsc_value_get_context(value)
        if let context { g_object_ref(UnsafeMutableRawPointer(context)) }
        let pointers = ReplyPointers(reply: reply, context: context)
        host.messagePosted(message, toHandlerAt: box.index) { answer in
            ReplyPointers.answer(answer, reply: pointers.reply, context: pointers.context)
            pointers.release()
        }
        return 1
    }
}
private let messageThunk: MessageThunk = { _, value, data in
    guard let value else { return }
    onMain((data, value)) { data, value in
        guard let box = signalHandler(data, as: HandlerBox.self), let host = box.driver.value?.host else { return }
        host.messagePosted(ScriptMessage(name: box.name, body: JSCConversion.messageBody(value)), toHandlerAt: box.index, reply: nil)
    }
}

/// A message reply that outlives its signal: answered once, then both references are dropped.
private final class ReplyPointers: @unchecked Sendable {
    let reply: OpaquePointer
    let context: OpaquePointer?

    init(reply: OpaquePointer, context: OpaquePointer?) {
        self.reply = reply
        self.context = context
    }

    @MainActor func release() {
        webkit_script_message_reply_unref(reply)
        if let context { g_object_unref(UnsafeMutableRawPointer(context)) }
    }

    /// Answers `reply` with a value made in `context` (the posted value's JS context).
    @MainActor static func answer(_ answer: ScriptReply, reply: OpaquePointer, context: OpaquePointer?) {
        if case .error(let message) = answer {
            webkit_script_message_reply_return_error_message(reply, message)
        } else if let context, let value = JSCConversion.value(for: answer, in: context) {
            webkit_script_message_reply_return_value(reply, value)
            g_object_unref(UnsafeMutableRawPointer(value))
        } else {
            webkit_script_message_reply_return_error_message(reply, "reply is not valid JSON")
        }
    }
}

extension GTKDriver {
    func connectSignals() {
        let me = Weakly(self)
        let instance = UnsafeMutableRawPointer(view)
        append(connectSignal(instance, "load-changed", thunk: signalThunk(loadChangedThunk), handler: me))
        append(connectSignal(instance, "load-failed", thunk: signalThunk(loadFailedThunk), handler: me))
        append(connectSignal(instance, "web-process-terminated", thunk: signalThunk(terminatedThunk), handler: me))
        append(connectSignal(instance, "decide-policy", thunk: signalThunk(decidePolicyThunk), handler: me))
        append(connectSignal(instance, "script-dialog", thunk: signalThunk(dialogThunk), handler: me))
        append(connectSignal(instance, "create", thunk: signalThunk(createThunk), handler: me))
        connectCloseSignal()
        let notifications: [(String, @MainActor () -> Void)] = [
            ("notify::uri", { [weak self] in self.map { $0.host?.report(.urlChanged($0.url)) } }),
            ("notify::title", { [weak self] in self.map { $0.host?.report(.titleChanged($0.title)) } }),
            ("notify::is-loading", { [weak self] in self.map { $0.host?.report(.loadingChanged($0.isLoading)) } }),
            ("notify::estimated-load-progress", { [weak self] in self.map { $0.host?.report(.progressChanged($0.estimatedProgress)) } }),
        ]
        for (signal, handler) in notifications {
            append(connectSignal(instance, signal, thunk: signalThunk(notifyThunk), handler: handler))
        }
        if let list = webkit_web_view_get_back_forward_list(view) {
            append(connectSignal(UnsafeMutableRawPointer(list), "changed", thunk: signalThunk(listChangedThunk), handler: me))
        }
    }

    func installUserContent() {
        let manager = contentManagerPointer
        for script in configuration.userScripts {
            let frames = script.frames == .allFrames ? WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES : WEBKIT_USER_CONTENT_INJECT_TOP_FRAME
            let time = script.injectionTime == .documentStart ? WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START : WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_END
            let userScript = withCStringArray(script.allowList) { allow in
                withCStringArray(script.blockList) { block in
                    if let world = script.world.name {
                        webkit_user_script_new_for_world(script.source, frames, time, world, allow, block)
                    } else {
                        webkit_user_script_new(script.source, frames, time, allow, block)
                    }
                }
            }
            webkit_user_content_manager_add_script(manager, userScript)
            webkit_user_script_unref(userScript)
        }
        for sheet in configuration.userStyleSheets {
            let frames = sheet.frames == .allFrames ? WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES : WEBKIT_USER_CONTENT_INJECT_TOP_FRAME
            let styleSheet = withCStringArray(sheet.allowList) { allow in
                withCStringArray(sheet.blockList) { block in
                    webkit_user_style_sheet_new(sheet.source, frames, WEBKIT_USER_STYLE_LEVEL_USER, allow, block)
                }
            }
            webkit_user_content_manager_add_style_sheet(manager, styleSheet)
            webkit_user_style_sheet_unref(styleSheet)
        }
        let me = Weakly(self)
        let instance = UnsafeMutableRawPointer(manager)
        for (index, handler) in configuration.messageHandlers.enumerated() {
            let box: HandlerBox = (me, handler.name, index)
            switch handler.kind {
            case .reply:
                webkit_user_content_manager_register_script_message_handler_with_reply(manager, handler.name, handler.world.name)
                append(connectSignal(instance, "script-message-with-reply-received::\(handler.name)", thunk: signalThunk(messageReplyThunk), handler: box))
            case .noReply:
                webkit_user_content_manager_register_script_message_handler(manager, handler.name, handler.world.name)
                append(connectSignal(instance, "script-message-received::\(handler.name)", thunk: signalThunk(messageThunk), handler: box))
            }
        }
    }
}

/// Calls `body` with a NULL-terminated C string array (NULL itself when `strings` is empty).
private func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    guard !strings.isEmpty else { return body(nil) }
    let duplicates = strings.map { strdup($0) }
    defer { duplicates.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = duplicates.map { $0.map { UnsafePointer($0) } } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
}
