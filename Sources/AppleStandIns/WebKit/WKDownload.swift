// WKDownload and its delegate (iOS 14.5, macOS 11.3), media-capture permission (iOS 15, macOS
// 12) and the open panel (macOS only). Optional delegate methods are declared as requirements for
// the reason given in WKNavigationDelegate.swift.
import FoundationAppleOnly

@available(iOS 14.5, macOS 11.3, *)
@MainActor
open class WKDownload: NSObject {
    open var originalRequest: URLRequest? { surfaceOnly() }
    weak open var webView: WKWebView? { surfaceOnly() }
    weak open var delegate: (any WKDownloadDelegate)? {
        get { surfaceOnly() }
        set { surfaceOnly() }
    }
    /// From `ProgressReporting`.
    open var progress: Progress { surfaceOnly() }
    open func cancel(_ completionHandler: (@MainActor @Sendable (Data?) -> Void)? = nil) { surfaceOnly() }
}

@available(iOS 14.5, macOS 11.3, *)
@MainActor
public protocol WKDownloadDelegate: NSObjectProtocol {
    func download(
        _ download: WKDownload, decideDestinationUsing response: URLResponse, suggestedFilename: String,
        completionHandler: @escaping @MainActor @Sendable (URL?) -> Void)
    func downloadDidFinish(_ download: WKDownload)
    func download(_ download: WKDownload, didFailWithError error: any Error, resumeData: Data?)
}

@MainActor
open class WKSecurityOrigin: NSObject {
    open var `protocol`: String { surfaceOnly() }
    open var host: String { surfaceOnly() }
    open var port: Int { surfaceOnly() }
}

@available(iOS 15.0, macOS 12.0, *)
public enum WKMediaCaptureType: Int, Sendable {
    case camera = 0
    case microphone = 1
    case cameraAndMicrophone = 2
}

@available(iOS 15.0, macOS 12.0, *)
public enum WKPermissionDecision: Int, Sendable {
    case prompt = 0
    case grant = 1
    case deny = 2
}

/// macOS only (`API_UNAVAILABLE(ios)`): the adapter uses it outside iOS only.
@MainActor
open class WKOpenPanelParameters: NSObject {
    open var allowsDirectories: Bool { surfaceOnly() }
    open var allowsMultipleSelection: Bool { surfaceOnly() }
}
