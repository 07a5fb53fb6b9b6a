import CHybridGTK
import CWebKitGTK
import Foundation
import HybridCore

/// Translation of load events, policy decisions and script dialogs: every question goes to the
/// host with the closure that carries its answer back to WebKit.
extension GTKDriver {
    func loadChanged(_ event: WebKitLoadEvent) {
        switch event {
        case WEBKIT_LOAD_STARTED: host?.report(.loadStarted(url))
        case WEBKIT_LOAD_REDIRECTED: host?.report(.loadRedirected(url))
        case WEBKIT_LOAD_COMMITTED: host?.report(.loadCommitted(url))
        case WEBKIT_LOAD_FINISHED: host?.report(.loadFinished(url))
        default: break
        }
    }

    func loadFailed(uri: UnsafePointer<CChar>?, error: UnsafeMutablePointer<GError>?) {
        let failing = uri.flatMap { URL(string: String(cString: $0)) }
        let message = error?.pointee.message.map { String(cString: $0) } ?? "load failed"
        var cancelled = false
        if let error {
            let domain = error.pointee.domain, code = error.pointee.code
            cancelled = (domain == webkit_network_error_quark() && code == WEBKIT_NETWORK_ERROR_CANCELLED.rawValue)
                || (domain == webkit_policy_error_quark() && code == WEBKIT_POLICY_ERROR_FRAME_LOAD_INTERRUPTED_BY_POLICY_CHANGE.rawValue)
        }
        host?.report(.loadFailed(failing, message: message, cancelled: cancelled))
    }

    /// Returns whether the decision is handled (asynchronously) here.
    func decidePolicy(_ decision: UnsafeMutablePointer<WebKitPolicyDecision>, type: WebKitPolicyDecisionType) -> Bool {
        guard let host else { return false }
        switch type {
        case WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION, WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION:
            guard let action = navigationAction(decision, newWindow: type == WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION) else { return false }
            let pointer = DecisionPointer(decision)
            host.navigationRequested(action) { decision in
                switch decision {
                case .proceed, .proceedAddingHeaders: webkit_policy_decision_use(pointer.decision)
                case .ignore: webkit_policy_decision_ignore(pointer.decision)
                }
                pointer.release()
            }
            return true
        case WEBKIT_POLICY_DECISION_TYPE_RESPONSE:
            guard let response = navigationResponse(decision) else { return false }
            let pointer = DecisionPointer(decision)
            host.responseArrived(response) { [weak self] policy in
                switch policy {
                case .allow: webkit_policy_decision_use(pointer.decision)
                case .cancel: webkit_policy_decision_ignore(pointer.decision)
                case .download:
                    if let self { self.download(pointer.decision, response) } else { webkit_policy_decision_ignore(pointer.decision) }
                }
                pointer.release()
            }
            return true
        default:
            return false
        }
    }

    /// A response to download: WebKit's own download, except for the app's custom schemes, which
    /// WebKit cannot download (it starts none): their handler serves the file (GTKSchemeDownload).
    private func download(_ decision: UnsafeMutablePointer<WebKitPolicyDecision>, _ response: NavigationResponse) {
        guard let handler = configuration.schemeHandlers[response.url.scheme?.lowercased() ?? ""] else {
            return webkit_policy_decision_download(decision)
        }
        webkit_policy_decision_ignore(decision)
        GTKSchemeDownload.run(id: GTKDownload.newID(), source: response.url, origin: response.isMainFrame ? pageOrigin : nil,
                              handler: handler, driver: self)
    }

    /// `window.open` and `target=_blank` that WebKit did not route through decide-policy.
    func newWindowRequested(_ action: OpaquePointer) {
        guard let request = webkit_navigation_action_get_request(action), let engineRequest = EngineRequest(request) else { return }
        host?.navigationAnnounced(NavigationAction(
            request: engineRequest, type: .other, isMainFrame: true, targetsNewWindow: true,
            isUserGesture: webkit_navigation_action_is_user_gesture(action) != 0))
    }

    private func navigationAction(_ decision: UnsafeMutablePointer<WebKitPolicyDecision>, newWindow: Bool) -> NavigationAction? {
        guard let action = webkit_navigation_policy_decision_get_navigation_action(OpaquePointer(decision)),
              let request = webkit_navigation_action_get_request(action),
              let engineRequest = EngineRequest(request)
        else { return nil }
        let type: NavigationType = switch webkit_navigation_action_get_navigation_type(action) {
        case WEBKIT_NAVIGATION_TYPE_LINK_CLICKED: .linkActivated
        case WEBKIT_NAVIGATION_TYPE_FORM_SUBMITTED: .formSubmitted
        case WEBKIT_NAVIGATION_TYPE_BACK_FORWARD: .backForward
        case WEBKIT_NAVIGATION_TYPE_RELOAD: .reload
        case WEBKIT_NAVIGATION_TYPE_FORM_RESUBMITTED: .formResubmitted
        default: .other
        }
        // WebKitGTK asks about subframe navigations too but does not say which frame; a named
        // target frame is the only hint it gives.
        let frameName = webkit_navigation_action_get_frame_name(action).map { String(cString: $0) }
        return NavigationAction(
            request: engineRequest, type: type, isMainFrame: newWindow || frameName == nil || frameName == "",
            targetsNewWindow: newWindow, isUserGesture: webkit_navigation_action_is_user_gesture(action) != 0,
            isRedirect: webkit_navigation_action_is_redirect(action) != 0)
    }

    private func navigationResponse(_ decision: UnsafeMutablePointer<WebKitPolicyDecision>) -> NavigationResponse? {
        let responseDecision = OpaquePointer(decision)
        guard let response = webkit_response_policy_decision_get_response(responseDecision),
              let uri = webkit_uri_response_get_uri(response), let url = URL(string: String(cString: uri))
        else { return nil }
        let headers = webkit_uri_response_get_http_headers(response).map(allHeaders) ?? []
        return NavigationResponse(
            url: url, statusCode: Int(webkit_uri_response_get_status_code(response)),
            mimeType: webkit_uri_response_get_mime_type(response).map { String(cString: $0) }, headers: headers,
            isMainFrame: webkit_response_policy_decision_is_main_frame_main_resource(responseDecision) != 0,
            canShowMIMEType: webkit_response_policy_decision_is_mime_type_supported(responseDecision) != 0)
    }

    /// Returns whether the dialog is handled here (WebKit then waits for its answer).
    func runDialog(_ dialog: OpaquePointer) -> Bool {
        guard let host else { return false }
        let kind: ScriptDialog.Kind = switch webkit_script_dialog_get_dialog_type(dialog) {
        case WEBKIT_SCRIPT_DIALOG_CONFIRM: .confirm
        case WEBKIT_SCRIPT_DIALOG_PROMPT: .prompt
        case WEBKIT_SCRIPT_DIALOG_BEFORE_UNLOAD_CONFIRM: .beforeUnload
        default: .alert
        }
        let message = webkit_script_dialog_get_message(dialog).map { String(cString: $0) } ?? ""
        let defaultText = kind == .prompt ? webkit_script_dialog_prompt_get_default_text(dialog).map { String(cString: $0) } : nil
        // Ref'ing the dialog and returning TRUE makes WebKit wait for webkit_script_dialog_close.
        // An answer given synchronously (inside this signal) must not close it here: WebKit then
        // finishes it itself with the values set, once the signal returns.
        webkit_script_dialog_ref(dialog)
        let pointer = DialogPointer(dialog)
        host.dialogOpened(ScriptDialog(kind: kind, message: message, defaultText: defaultText)) { result in
            switch (kind, result) {
            case (.confirm, _), (.beforeUnload, _):
                webkit_script_dialog_confirm_set_confirmed(pointer.dialog, result == .cancelled ? 0 : 1)
            case (.prompt, .accepted(let text)):
                webkit_script_dialog_prompt_set_text(pointer.dialog, text ?? "")
            case (.prompt, .cancelled), (.alert, _):
                break  // an unanswered prompt returns null
            }
            if pointer.insideSignal {
                pointer.answeredInsideSignal = true
            } else {
                webkit_script_dialog_close(pointer.dialog)
                webkit_script_dialog_unref(pointer.dialog)
            }
        }
        pointer.insideSignal = false
        if pointer.answeredInsideSignal { webkit_script_dialog_unref(dialog) }
        return true
    }
}

/// A referenced policy decision carried into the task that answers it.
private final class DecisionPointer: @unchecked Sendable {
    let decision: UnsafeMutablePointer<WebKitPolicyDecision>
    init(_ decision: UnsafeMutablePointer<WebKitPolicyDecision>) {
        self.decision = decision
        g_object_ref(UnsafeMutableRawPointer(decision))
    }
    func release() { g_object_unref(UnsafeMutableRawPointer(decision)) }
}

private final class DialogPointer: @unchecked Sendable {
    let dialog: OpaquePointer
    var insideSignal = true
    var answeredInsideSignal = false
    init(_ dialog: OpaquePointer) { self.dialog = dialog }
}

extension EngineRequest {
    init?(_ request: OpaquePointer) {
        guard let uri = webkit_uri_request_get_uri(request), let url = URL(string: String(cString: uri)) else { return nil }
        let method = webkit_uri_request_get_http_method(request).map { String(cString: $0) } ?? "GET"
        let headers = webkit_uri_request_get_http_headers(request).map(allHeaders) ?? []
        self.init(url: url, method: method, headers: headers)
    }
}
