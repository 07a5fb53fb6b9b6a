import Foundation
import HybridCore
import HybridServer
import HybridFixtures

/// A loopback origin and the shared provider of one engine, for the container lifecycle tests.
@MainActor
final class LifecycleRig {
    let server: LoopbackServer
    let kind: EngineKind
    let provider: any WebEngineProvider
    /// Requests per path, counted on the server thread.
    let hits = Locked<[String: Int]>([:])
    private var views: [HybridWebView] = []

    init(_ kind: EngineKind) throws {
        server = try LoopbackServer()
        self.kind = kind
        provider = try kind.provider()
        let hits = self.hits
        server.route("/count") { request in
            hits.mutate { $0[request.path, default: 0] += 1 }
            return .html("<title>Counted</title><p id=content>counted \(request.path)</p>")
        }
        server.route("/beacon") { request in
            hits.mutate { $0[request.path, default: 0] += 1 }
            return .status(204)
        }
        let tone = Self.toneWAV
        server.route("/tone.wav") { _ in ServerResponse(headers: ["Content-Type": "audio/wav"], body: tone) }
    }

    func page(_ path: String, _ html: String) { server.route(path) { _ in .html(html) } }
    func url(_ path: String) -> URL { server.url(path) }
    func hitCount(_ path: String) -> Int { hits.value[path] ?? 0 }

    func view(_ configuration: HybridWebViewConfiguration = HybridWebViewConfiguration()) throws -> HybridWebView {
        let view = try HybridWebView(provider: provider, configuration: configuration)
        views.append(view)
        return view
    }

    /// A view with a ``LifecycleDelegate`` that records what it is asked, showing `path`; with
    /// `afterWarmUp`, first a document without a base (as a pool warms a view up), so `path` is
    /// the only entry of the view's history.
    func delegatedView(showing path: String, afterWarmUp: Bool = false) async throws -> (view: HybridWebView, delegate: LifecycleDelegate) {
        let view = try view()
        let delegate = LifecycleDelegate()
        view.delegate = delegate
        if afterWarmUp {
            let warm = EventRecorder(view.engine)
            view.loadHTML("<p>warm</p>", baseURL: nil)
            try await warm.loadFinished()
        }
        try await view.loadAndWait(url(path))
        return (view, delegate)
    }

    func close() {
        for view in views { view.close() }
        server.stop()
    }

    /// Two seconds of a quiet 440 Hz tone, 8 kHz mono 8-bit PCM.
    nonisolated static let toneWAV: Data = {
        let rate = 8000, samples = rate * 2
        var data = Data("RIFF".utf8)
        func le32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { data.append(contentsOf: $0) } }
        func le16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { data.append(contentsOf: $0) } }
        le32(36 + samples)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        le32(16); le16(1); le16(1); le32(rate); le32(rate); le16(1); le16(8)
        data.append(contentsOf: Array("data".utf8))
        le32(samples)
        for i in 0..<samples { data.append(UInt8(128 + Int(20 * sin(Double(i) * 2 * .pi * 440 / Double(rate))))) }
        return data
    }()
}

extension HybridWebView {
    /// Loads `url` and waits for the load to finish.
    func loadAndWait(_ url: URL, timeout: Double = 20) async throws {
        let recorder = EventRecorder(engine)
        load(url)
        try await recorder.loadFinished(timeout: timeout)
    }

    /// Runs an async function body in the page world.
    /// Runs `body` as an async function in the page. It settles within 10 s (a bridge call that
    /// never answers becomes a failure, not a hung suite).
    func page(_ body: String) async throws -> JSONValue {
        try await engine.callAsync("""
            return await Promise.race([
              (async () => { \(body) })(),
              new Promise((_, reject) => setTimeout(() => reject(new Error('page call did not settle in 10 s')), 10000)),
            ]);
            """)
    }
}

/// Records what a view asks of the app.
@MainActor
final class LifecycleDelegate: HybridWebViewDelegate {
    var dialogs: [ScriptDialogCompletion] = []
    /// Answer dialogs at once with this (nil = keep them open).
    var answer: ((ScriptDialog) -> ScriptDialogResult)?
    var whiteScreens: [WhiteScreenEvent] = []
    var newWindows: [NewWindowRequest] = []
    var closeRequests = 0
    var failures: [LoadFailure] = []
    var restores: [PageRestoreEvent] = []

    func webView(_ webView: HybridWebView, runDialog completion: ScriptDialogCompletion) {
        if let answer { completion.complete(answer(completion.dialog)) } else { dialogs.append(completion) }
    }
    func webView(_ webView: HybridWebView, requestsNewWindow request: NewWindowRequest) { newWindows.append(request) }
    /// Close the view when the page asks to close it.
    var closesOnRequest = false
    func webViewRequestsClose(_ webView: HybridWebView) {
        closeRequests += 1
        if closesOnRequest { webView.close() }
    }
    func webView(_ webView: HybridWebView, didDetectWhiteScreen event: WhiteScreenEvent) { whiteScreens.append(event) }
    func webView(_ webView: HybridWebView, didFailLoad failure: LoadFailure) { failures.append(failure) }
    func webView(_ webView: HybridWebView, didRestore event: PageRestoreEvent) { restores.append(event) }
}
