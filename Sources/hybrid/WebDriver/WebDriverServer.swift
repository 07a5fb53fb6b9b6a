#if os(Linux)
import Foundation
import HybridCore
import HybridServer
import HybridWebDriver

/// What `hybrid webdriver`'s options set for every session (a session's `hybrid:options` win).
struct WebDriverDefaults: Sendable {
    var engine: RunOptions.Engine = .webkit
    var config: String?
    var key: String?
    var installID = "hybrid-webdriver"
    var store: String?
    var allow: [String] = []
    var viewport = ViewportSize(width: 1024, height: 768)
    var verbose = false
}

/// `hybrid webdriver`: HybridServer's loopback listener in front of a ``WebDriverEndpoint`` whose
/// sessions are `hybrid run`'s containers (RunContainer) with automation allowed.
@MainActor
final class WebDriverServer {
    private let defaults: WebDriverDefaults
    /// One provider per engine for every session: Chromium starts once, not per session.
    private let providers = ProviderCache()

    init(defaults: WebDriverDefaults) { self.defaults = defaults }

    func serve(port: Int, urlFile: String?) async throws -> Int32 {
        let server = try LoopbackServer(host: "127.0.0.1", port: port)
        let endpoint = WebDriverEndpoint(port: server.port) { [weak self] capabilities in
            guard let self else { throw WebDriverError(.sessionNotCreated, "the server is stopping") }
            return try await self.makeSession(capabilities)
        }
        let verbose = defaults.verbose
        // Deferred: the listener keeps serving while the main actor works, so a page's own request
        // to the endpoint during a command (refused: it has an Origin) cannot wait behind that command.
        server.route("/", deferred: { request, respond in
            let call = WebDriverRequest(method: request.method, path: request.path, host: request.headers["Host"],
                                        origin: request.headers["Origin"], body: request.body)
            Task { @MainActor in
                let response = await endpoint.respond(to: call)
                if verbose { Self.say("[webdriver] \(call.method) \(Self.redacted(call.path)) → \(response.status)") }
                respond(ServerResponse(status: response.status, headers: ["Content-Type": "application/json; charset=utf-8",
                                                                          "Cache-Control": "no-cache"], body: response.data))
            }
        })
        let url = endpoint.url.absoluteString
        if let urlFile, !FileManager.default.createFile(atPath: urlFile, contents: Data((url + "\n").utf8),
                                                        attributes: [.posixPermissions: 0o600]) {
            server.stop()
            throw RunError("cannot write --url-file \(urlFile)")
        }
        Self.say("hybrid webdriver: listening at \(url)")
        Self.say("ready")
        await Self.waitForStopSignal()
        endpoint.endAll()
        server.stop()
        Self.say("stopped")
        return 0
    }

    /// A whole line on standard output at once (a test runner waits for `ready`).
    private nonisolated static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// The path with the token left out (logs).
    private nonisolated static func redacted(_ path: String) -> String {
        "/…" + (path.dropFirst().firstIndex(of: "/").map { String(path[$0...]) } ?? "")
    }

    private static func waitForStopSignal() async {
        let stop = StopSignal()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                stop.wait()
                continuation.resume()
            }
        }
    }

    /// A session's container: its engine, config, package or first page from `hybrid:options`,
    /// else the command's options.
    private func makeSession(_ capabilities: WebDriverCapabilities) async throws -> WebDriverSessionContent {
        let hybrid = capabilities.hybrid
        let store = hybrid.store ?? defaults.store
        var options = RunOptions(target: hybrid.package ?? hybrid.url ?? "about:blank")
        options.engine = hybrid.engine.flatMap(RunOptions.Engine.init(rawValue:)) ?? defaults.engine
        options.store = store.map { URL(fileURLWithPath: $0, isDirectory: true) }
        options.viewport = defaults.viewport
        options.allow = defaults.allow + hybrid.allow
        if let path = hybrid.config ?? defaults.config {
            do {
                options.config = try RunConfigFile(path: path, key: hybrid.config == nil ? defaults.key : hybrid.key,
                                                   installID: hybrid.installID ?? defaults.installID)
            } catch {
                throw WebDriverError(.invalidArgument, "hybrid:options.config: \(error)")
            }
        }
        if hybrid.package != nil, hybrid.url != nil {
            throw WebDriverError(.invalidArgument, "hybrid:options has both package and url: choose one first page")
        }
        let target: RunTarget
        do {
            target = try RunTarget.resolve(options.target, entry: options.entry, store: options.store)
        } catch {
            throw WebDriverError(.invalidArgument, "hybrid:options: \(error)")
        }
        let origins = target.origins + options.allow.map { OriginPattern(stringLiteral: $0) }
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-webdriver-\(UUID().uuidString)")
        let modules: [any BridgeModule] = [
            DeviceModule(appName: "hybrid webdriver", appVersion: BridgeRouter.version, allowedOrigins: origins),
            StorageModule(store: BridgeKeyValueStore(directory: storage), allowedOrigins: origins),
        ]
        var container = RunContainer(options: options, target: target, modules: modules, origins: origins)
        container.providers = providers
        container.automation = true
        let view = try await container.make().view
        let sync = view.configuration.cookieSync
        switch target.kind {
        case .package:
            _ = await view.launchPackage(target.url(on: view.engine.capabilities))
        case .url where target.url.scheme != "about":
            view.open(target.url(on: view.engine.capabilities))
        default: break
        }
        return WebDriverSessionContent(view: view) {
            sync?.stop()
            try? FileManager.default.removeItem(at: storage)
        }
    }
}
#endif
