#if canImport(WebKit)
import Foundation
import HybridCore
import WebKit

/// Downloads, media-capture permission and (on macOS) the open panel, carried to the host.
///
/// WKWebView names the requesting frame's origin, so a foreign iframe is asked about as itself.
/// Position and notifications never reach a delegate on WKWebView (iOS asks the user itself, with
/// the app's location authorization), so only camera and microphone go through the policy here.
extension WKNavigationProxy {
    /// The frame that started it (an iframe's `<a download>` is the iframe's, not the page's).
    func webView(_ webView: WKWebView, navigationAction: WKNavigationAction, didBecome download: WKDownload) {
        let source = navigationAction.sourceFrame.securityOrigin
        driver?.downloads.follow(download, origin: Self.origin(scheme: source.protocol, host: source.host, port: source.port))
    }

    /// A response names no frame beyond "main or not": an iframe's is of unknown origin.
    func webView(_ webView: WKWebView, navigationResponse: WKNavigationResponse, didBecome download: WKDownload) {
        driver?.downloads.follow(download, origin: navigationResponse.isForMainFrame ? webView.url.flatMap(BridgeOrigin.init(url:)) : nil)
    }

    func webView(
        _ webView: WKWebView, requestMediaCapturePermissionFor origin: WKSecurityOrigin, initiatedByFrame frame: WKFrameInfo,
        type: WKMediaCaptureType, decisionHandler: @escaping @MainActor @Sendable (WKPermissionDecision) -> Void
    ) {
        guard let host = driver?.host else { return decisionHandler(.deny) }
        let request = PermissionRequest(
            kinds: Self.kinds(type),
            origin: Self.origin(scheme: origin.protocol, host: origin.host, port: origin.port),
            isMainFrame: frame.isMainFrame)
        host.permissionRequested(request) { decision in decisionHandler(decision == .allow ? .grant : .deny) }
    }

    /// The contract's kinds for WebKit's capture type.
    static func kinds(_ type: WKMediaCaptureType) -> Set<PermissionKind> {
        switch type {
        case .camera: [.camera]
        case .microphone: [.microphone]
        case .cameraAndMicrophone: [.camera, .microphone]
        }
    }

    /// A `WKSecurityOrigin`'s parts as an origin (port 0 means the scheme's default).
    static func origin(scheme: String, host: String, port: Int) -> BridgeOrigin {
        BridgeOrigin(scheme: scheme, host: host, port: port == 0 ? nil : port)
    }

    #if !os(iOS) && !os(tvOS) && !os(visionOS) && !os(watchOS)
    /// macOS's open panel. (iOS has no such delegate method: WKWebView shows its own picker —
    /// photo library, camera, files — and hands the page what the user chose.)
    func webView(
        _ webView: WKWebView, runOpenPanelWith parameters: WKOpenPanelParameters, initiatedByFrame frame: WKFrameInfo,
        completionHandler: @escaping @MainActor @Sendable ([URL]?) -> Void
    ) {
        guard let host = driver?.host else { return completionHandler(nil) }
        let so = frame.securityOrigin
        let request = FileChooserRequest(
            allowsMultiple: parameters.allowsMultipleSelection, origin: Self.origin(scheme: so.protocol, host: so.host, port: so.port))
        host.fileChooserOpened(request) { files in
            let chosen = parameters.allowsMultipleSelection ? files : Array(files.prefix(1))
            completionHandler(chosen.isEmpty ? nil : chosen)
        }
    }
    #endif
}
#endif
