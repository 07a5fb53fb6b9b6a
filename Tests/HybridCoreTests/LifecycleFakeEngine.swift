import Foundation
import HybridCore

/// An engine that does nothing by itself: tests drive its events and read what the container
/// asked of it, so the façade's policy is checked without a real engine.
@MainActor
final class LifecycleFakeEngine: WebEngine {
    let engineName = "fake"
    let capabilities: EngineCapabilities = [.scriptWorlds, .messageReplies, .schemeRequestBodies]
    weak var delegate: (any WebEngineDelegate)?
    var url: URL?
    var title: String?
    var isLoading = false
    var estimatedProgress = 0.0
    var canGoBack = false
    var canGoForward = false
    var backForwardList = BackForwardList()
    var isAlive = true
    var closed = false
    /// What the container asked for, in order (`load URL`, `html`, `reload`, `visible true`…).
    var calls: [String] = []
    private let observers = EngineObservers()

    func observe(_ handler: @escaping @MainActor (EngineEvent) -> Void) -> ObservationToken { observers.add(handler) }
    func emit(_ event: EngineEvent) { observers.emit(event) }

    func load(_ request: EngineRequest) { calls.append("load \(request.url.absoluteString)") }
    func loadHTML(_ html: String, baseURL: URL?) { calls.append(html.isEmpty ? "blank" : "html") }
    func loadSimulatedResponse(_ data: Data, mimeType: String, encoding: String?, for url: URL) { calls.append("simulated \(url)") }
    func stopLoading() { calls.append("stop") }
    func reload() { calls.append("reload") }
    func goBack() { calls.append("back") }
    func goForward() { calls.append("forward") }
    func evaluate(_ script: String, in world: ScriptWorld) async throws -> JSONValue { .null }
    func callAsync(_ body: String, arguments: [String: JSONValue], in world: ScriptWorld) async throws -> JSONValue { .null }
    var cookieStore: any EngineCookieStore { fatalError("not used") }
    func snapshot() async throws -> Data { Data([0x89, 0x50, 0x4E, 0x47]) }
    func terminateContentProcess() { isAlive = false }
    func setVisible(_ visible: Bool) { calls.append("visible \(visible)") }
    func close() { closed = true }

    /// A load of `url` from start to finish, as an engine reports it.
    func runLoad(_ url: URL, title: String? = nil) {
        self.url = url
        emit(.loadStarted(url))
        emit(.progressChanged(0.5))
        emit(.loadCommitted(url))
        self.title = title
        emit(.loadFinished(url))
        if let title { emit(.titleChanged(title)) }
    }
}

@MainActor
final class LifecycleFakeProvider: WebEngineProvider {
    let engineName = "fake"
    let capabilities: EngineCapabilities = [.scriptWorlds, .messageReplies, .schemeRequestBodies]
    let store = MemoryEngineCookieStore()
    var cookieStore: any EngineCookieStore { store }
    var engines: [LifecycleFakeEngine] = []
    func makeEngine(_ configuration: EngineConfiguration) throws -> any WebEngine {
        let engine = LifecycleFakeEngine()
        engines.append(engine)
        return engine
    }
}
