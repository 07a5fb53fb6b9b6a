import CWebKitGTK
import HybridCore

extension GTKDriver {
    /// WebKit's own view of the web process (`is-web-process-responsive`): it turns false when a
    /// message WebKit expects an answer to goes unanswered for seconds, and true again when the
    /// process answers; reading it sends nothing to the process.
    public var isContentProcessResponsive: Bool? { webkit_web_view_get_is_web_process_responsive(view) != 0 }
}
