import Foundation
@testable import HybridCore

/// An engine that records what the bridge asks of it. For the bridge host's pure policy only:
/// everything about real pages is tested on WebKitGTK in the end-to-end suite.
@MainActor
final class BridgeFakeEngine: WebEngine {
    let engineName = "fake"
    let capabilities: EngineCapabilities
    weak var delegate: (any WebEngineDelegate)?
    var url: URL?
    var title: String?
    var isLoading = false
    var estimatedProgress = 0.0
    var canGoBack = false
    var canGoForward = false
    var backForwardList = BackForwardList()
    var isAlive = true
    /// Every evaluated script and its world, in order.
    var evaluated: [(script: String, world: ScriptWorld)] = []
    /// What `evaluate` returns for scripts containing a key.
    var results: [String: JSONValue] = [:]
    private let observers = EngineObservers()

    init(capabilities: EngineCapabilities = .fake()) { self.capabilities = capabilities }

    func emit(_ event: EngineEvent) { observers.emit(event) }

    /// Commits a new document at `url`.
    func commit(_ url: URL) {
        self.url = url
        emit(.loadCommitted(url))
    }

    func observe(_ handler: @escaping @MainActor (EngineEvent) -> Void) -> ObservationToken { observers.add(handler) }

    func evaluate(_ script: String, in world: ScriptWorld) async throws -> JSONValue {
        evaluated.append((script, world))
        return results.first { script.contains($0.key) }?.value ?? .null
    }

    func callAsync(_ body: String, arguments: [String: JSONValue], in world: ScriptWorld) async throws -> JSONValue { .null }
    func load(_ request: EngineRequest) {}
    func loadHTML(_ html: String, baseURL: URL?) {}
    func loadSimulatedResponse(_ data: Data, mimeType: String, encoding: String?, for url: URL) {}
    func stopLoading() {}
    func reload() {}
    func goBack() {}
    func goForward() {}
    var cookieStore: any EngineCookieStore { BridgeFakeCookies() }
    func snapshot() async throws -> Data { Data() }
    func terminateContentProcess() { emit(.contentProcessTerminated(.terminatedByClient)) }
    func setVisible(_ visible: Bool) {}
    func close() { isAlive = false }
}

@MainActor
final class BridgeFakeCookies: EngineCookieStore {
    func cookies(for url: URL) async throws -> [Cookie] { [] }
    func allCookies() async throws -> [Cookie] { [] }
    func setCookie(_ cookie: Cookie) async throws {}
    func deleteCookie(_ cookie: Cookie) async throws {}
    func observeChanges(_ handler: @escaping @MainActor () -> Void) -> ObservationToken { ObservationToken {} }
}

extension EngineCapabilities {
    static func fake(worlds: Bool = true, replies: Bool = true) -> EngineCapabilities {
        var capabilities: EngineCapabilities = [.schemeRequestBodies, .clearsHistory, .consoleMessages]
        if worlds { capabilities.insert(.scriptWorlds) }
        if replies { capabilities.insert(.messageReplies) }
        return capabilities
    }
}
