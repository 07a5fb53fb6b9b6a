import Foundation
import HybridBlink
import HybridCore
import HybridServer
import HybridFixtures

/// One engine's provider with fake capture devices, test pages at its test origins, and a
/// delegate that records every data-plane question (permissions, downloads, file pickers).
@MainActor
final class DataRig {
    let kind: EngineKind
    let provider: any WebEngineProvider
    let pages: DataPages
    let delegate = DataDelegate()
    private let ownsProvider: Bool
    /// Loopback servers the test started; stopped by ``close()``.
    var servers: [LoopbackServer] = []
    private var views: [HybridWebView] = []

    /// Blink gets a browser of its own (fake devices are a launch flag, grants are browser-wide).
    init(_ kind: EngineKind, pages files: [String: String]) throws {
        self.kind = kind
        pages = DataPages(files)
        if kind == .blink {
            let blink = try BlinkEngineProvider()
            blink.usesFakeCaptureDevices = true
            provider = blink
            ownsProvider = true
        } else {
            provider = try kind.provider()
            ownsProvider = false
        }
    }

    /// A view serving the pages, with `permissions` as its policy and ``delegate`` as its delegate.
    func view(permissions: PermissionPolicy? = nil) throws -> HybridWebView {
        var configuration = HybridWebViewConfiguration(engine: kind.pages(pages))
        configuration.engine.usesMockCaptureDevices = true
        configuration.permissions = permissions
        let view = try HybridWebView(provider: provider, configuration: configuration)
        view.delegate = delegate
        views.append(view)
        return view
    }

    func close() async {
        for view in views { view.close() }
        for server in servers { server.stop() }
        if ownsProvider { await kind.release(provider) }
    }

    /// A page script that asks for the camera and says what came of it: `live`, or the error's name.
    static let askCamera = """
        try {
          const stream = await navigator.mediaDevices.getUserMedia({video: true});
          const state = stream.getVideoTracks()[0].readyState;
          stream.getTracks().forEach(t => t.stop());
          return state;
        } catch (e) { return e.name; }
        """
}

/// Records the data-plane questions a view asks of the app, and answers as the test says.
@MainActor
final class DataDelegate: HybridWebViewDelegate {
    var permissionQuestions: [PermissionRequest] = []
    var permissionAnswer: PermissionDecision = .deny
    var downloads: [Download] = []
    var downloadAnswer: (Download) -> DownloadDecision = { _ in .cancel }
    var downloadEvents: [(id: String, event: DownloadEvent)] = []
    var fileRequests: [FileChooserRequest] = []
    var files: [URL] = []

    func webView(_ webView: HybridWebView, decidePermission request: PermissionRequest) async -> PermissionDecision {
        permissionQuestions.append(request)
        return permissionAnswer
    }
    func webView(_ webView: HybridWebView, decideDownload download: Download) async -> DownloadDecision {
        downloads.append(download)
        return downloadAnswer(download)
    }
    func webView(_ webView: HybridWebView, download id: String, didChange event: DownloadEvent) {
        downloadEvents.append((id, event))
    }
    func webView(_ webView: HybridWebView, chooseFiles request: FileChooserRequest) async -> [URL] {
        fileRequests.append(request)
        return files
    }

    /// The end event of download `id` (finished, failed or cancelled), once it came.
    func end(of id: String) -> DownloadEvent? {
        downloadEvents.first { $0.id == id && { if case .progress = $0.event { false } else { true } }($0) }?.event
    }
}

/// Pages and files a test serves at its engine's test origins (any host), with their headers.
@MainActor
final class DataPages: URLSchemeHandler {
    var files: [String: (type: String, headers: [(name: String, value: String)], body: Data)] = [:]
    /// Paths requested, in order (not the favicon).
    var requested: [String] = []

    init(_ pages: [String: String]) {
        for (path, html) in pages { files[path] = ("text/html", [], Data(html.utf8)) }
    }

    /// Serves `body` at `path` with `type` and `headers`.
    func add(_ path: String, type: String, headers: [(name: String, value: String)] = [], body: Data) {
        files[path] = (type, headers, body)
    }

    func respond(to request: SchemeRequest) async throws -> SchemeResponse {
        let path = String(request.url.path.drop(while: { $0 == "/" }))
        guard path != "favicon.ico", let file = files[path] else {
            return SchemeResponse(status: 404, contentType: "text/plain", data: Data("not found".utf8))
        }
        requested.append(path)
        return SchemeResponse(status: 200, contentType: file.type, headers: file.headers, data: file.body)
    }
}
