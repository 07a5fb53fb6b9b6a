#if canImport(CSoup)
import CSoup
import Foundation
import HybridBase

/// A real HTTP server on libsoup 3's `SoupServer`, running on its own thread with its own
/// GLib main context, so it never depends on the UI main loop: tests, the CLI and benchmarks
/// can all use it.
///
/// ```swift
/// let server = try LoopbackServer()
/// server.route("/hello") { _ in .text("hi") }
/// let url = server.url("/hello", host: "localhost")   // a second site for cross-site cases
/// server.stop()
/// ```
///
/// Handlers run on the server thread, one at a time; slow answers use ``ServerResponse/delay``,
/// answers computed elsewhere a deferred route (``route(_:deferred:)``).
public final class LoopbackServer: @unchecked Sendable {
    /// The bound port (the real one when created with port 0).
    public let port: Int
    /// The address the server listens on.
    public let host: String

    private let routes: RouteTable
    private let loop: GLibLoop
    private let exited: DispatchSemaphore
    private let stateLock = NSLock()
    private var running = true

    /// Starts listening on `host:port` (port 0 = any free port) and returns once requests are served.
    /// On `127.0.0.1` it also listens on `[::1]` at the same port when it can, so `localhost`
    /// works whichever address a client resolves first.
    /// - Parameter accessLog: called once per request with a one-line summary (on the server thread).
    /// - Parameter headerTimeout: seconds a connection may take to send a request's headers (and
    ///   stay idle between keep-alive requests) before it is closed; `nil` = no limit.
    /// - Throws: `HybridError.network(.serverStartFailed)` when the address cannot be bound.
    public init(host: String = "127.0.0.1", port: Int = 0, accessLog: (@Sendable (String) -> Void)? = nil,
                headerTimeout: Double? = nil) throws {
        let routes = RouteTable(accessLog: accessLog)
        let loop = GLibLoop()
        let startup = StartupResult()
        let exited = DispatchSemaphore(value: 0)
        let thread = Thread {
            Self.serve(host: host, port: port, routes: routes, loop: loop, startup: startup, headerTimeout: headerTimeout)
            exited.signal()
        }
        thread.name = "HybridServer \(host):\(port)"
        thread.start()
        startup.ready.wait()
        guard case .success(let bound) = startup.outcome else {
            exited.wait()
            if case .failure(let message) = startup.outcome { throw HybridError.network(.serverStartFailed(message)) }
            throw HybridError.network(.serverStartFailed("the server thread gave no result"))
        }
        self.port = bound
        self.exited = exited
        self.host = host
        self.routes = routes
        self.loop = loop
    }

    deinit { stop() }

    /// Handles every request whose path is `prefix` or below it (whole segments); the longest
    /// matching prefix wins. Replaces an earlier handler for the same prefix. Callable any time.
    public func route(_ prefix: String, _ handler: @escaping RouteHandler) {
        routes.add(prefix, .immediate(handler))
    }

    /// Like ``route(_:_:)``, for a handler that answers later (work on another thread or actor):
    /// the request is held, the server serves others meanwhile, and the answer is written when
    /// `respond` is called (a client that went away gets nothing).
    public func route(_ prefix: String, deferred handler: @escaping DeferredRouteHandler) {
        routes.add(prefix, .deferred(handler))
    }

    /// Removes the handler for `prefix`.
    public func removeRoute(_ prefix: String) { routes.remove(prefix) }

    /// `http://HOST:PORT/path` — pass `host: "localhost"` for a second site on the same server.
    /// - Parameter path: a path with an optional query (`/echo?x=1`); a leading `/` is added if missing.
    public func url(_ path: String = "/", host: String? = nil) -> URL {
        let name = host ?? self.host
        let authority = name.contains(":") ? "[\(name)]" : name
        let suffix = path.hasPrefix("/") ? path : "/" + path
        guard let url = URL(string: "http://\(authority):\(port)\(suffix)") else {
            preconditionFailure("invalid path for a URL: \(path)")
        }
        return url
    }

    /// Whether the server still serves.
    public var isRunning: Bool { stateLock.withLock { running } }

    /// Stops serving: quits the server's main loop, closes every connection and waits for the
    /// server thread to end. Idempotent; safe from any thread except the server's own.
    public func stop() {
        let wasRunning = stateLock.withLock {
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        loop.quit()
        exited.wait()
    }

    // MARK: The server thread

    private static func serve(host: String, port: Int, routes: RouteTable, loop: GLibLoop, startup: StartupResult,
                              headerTimeout: Double?) {
        g_main_context_push_thread_default(loop.context)
        defer { g_main_context_pop_thread_default(loop.context) }
        guard let server = SoupListener.makeServer(routes: routes, loop: loop) else {
            startup.finish(.failure("cannot create SoupServer"))
            return
        }
        if let headerTimeout { HeaderDeadline.install(on: server, after: headerTimeout) }
        defer { SoupListener.shutDown(server) }
        switch SoupListener.listen(server, host: host, port: port) {
        case .failure(let error):
            startup.finish(.failure(error.description))
            return
        case .success(let bound):
            // Report readiness from inside the running loop, so a `stop()` right after `init`
            // never races `g_main_loop_run`.
            loop.whenRunning { startup.finish(.success(bound)) }
            loop.run()
        }
    }
}

/// The startup handshake between `init` and the server thread.
private final class StartupResult: @unchecked Sendable {
    enum Outcome { case success(Int), failure(String) }
    let ready = DispatchSemaphore(value: 0)
    private(set) var outcome: Outcome?
    func finish(_ outcome: Outcome) {
        self.outcome = outcome
        ready.signal()
    }
}
#endif
