#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Foundation
import HybridCore

/// A running Chromium and its DevTools connection: numbered commands with their answers, and
/// events routed to the view that owns the session (flattened sessions: `sessionId` on messages).
///
/// Everything happens on the main actor; the pipe's reader thread hops here through the main
/// dispatch queue, which keeps messages in the order Chromium sent them.
@MainActor
final class BlinkBrowser {
    typealias Reply = @MainActor (Result<JSONValue, DevToolsError>) -> Void

    private let process: BlinkProcess
    private var nextID = 0
    private var replies: [Int: (method: String, reply: Reply?)] = [:]
    private var sessions: [String: Weak<BlinkDriver>] = [:]
    private var targets: [String: Weak<BlinkDriver>] = [:]
    private var userAgentWaiters: [(String?) -> Void]? = []
    /// The browser's User-Agent with `HeadlessChrome` said as `Chrome` (pages sniff it).
    private(set) var userAgent: String?
    /// Set once the process exited; nothing is sent afterwards.
    private(set) var hasExited = false
    /// Called once when the process exits (crash, kill or shutdown).
    var onExit: (@MainActor () -> Void)?
    /// The process id of the browser.
    var pid: Int32 { process.pid }
    /// Origins granted Local Network Access for the byte channel (BlinkDriver+ByteChannel.swift).
    var loopbackGrants: Set<String> = []
    /// Receives the browser-wide download events (`Browser.downloadWillBegin`, `downloadProgress`).
    var downloadEvents: (@MainActor (String, JSONValue) -> Void)?

    /// Starts Chromium; fails when it cannot be spawned. `leftovers` are removed once it exits.
    init(executable: String, arguments: [String], environment: [String: String], leftovers: BlinkLeftovers) throws {
        let weakSelf = WeakBox<BlinkBrowser>()
        process = try BlinkProcess(executable: executable, arguments: arguments, environment: environment, leftovers: leftovers, deliver: { batch in
            DispatchQueue.main.async { MainActor.assumeIsolated { weakSelf.value?.receive(batch) } }
        }, exited: { _ in
            DispatchQueue.main.async { MainActor.assumeIsolated { weakSelf.value?.processExited() } }
        })
        weakSelf.value = self
        send("Target.setDiscoverTargets", ["discover": true])
        send("Browser.getVersion") { [weak self] result in
            guard let self else { return }
            if case .success(let version) = result, let agent = version.string("userAgent") {
                self.userAgent = agent.replacingOccurrences(of: "HeadlessChrome/", with: "Chrome/")
            }
            let waiters = self.userAgentWaiters ?? []
            self.userAgentWaiters = nil
            for waiter in waiters { waiter(self.userAgent) }
        }
    }

    /// A browser nobody holds any more quits cleanly in the background (SIGTERM, then SIGKILL, if it hangs).
    isolated deinit { process.terminate() }

    /// Calls `body` with the User-Agent once it is known (at once if it is).
    func withUserAgent(_ body: @escaping (String?) -> Void) {
        if userAgentWaiters == nil { body(userAgent) } else { userAgentWaiters?.append(body) }
    }

    // MARK: Commands

    /// Sends a command; `reply` gets its result or the browser's error exactly once (a
    /// `browser_exited` error when the process goes away first).
    func send(_ method: String, _ params: [String: JSONValue] = [:], session: String? = nil, reply: Reply? = nil) {
        guard !hasExited else {
            reply?(.failure(DevToolsError(method: method, code: -1, message: "browser exited")))
            return
        }
        nextID += 1
        var message: [String: JSONValue] = ["id": .number(Double(nextID)), "method": .string(method), "params": .object(params)]
        if let session { message["sessionId"] = .string(session) }
        replies[nextID] = (method, reply)
        let data = DevToolsJSON.data(.object(message))
        if Self.tracing { Self.trace("→ [\(data.count)] " + String(decoding: data.prefix(300), as: UTF8.self)) }
        process.send(data)
    }

    /// Sends a command and awaits its result.
    func call(_ method: String, _ params: [String: JSONValue] = [:], session: String? = nil) async throws -> JSONValue {
        try await withCheckedThrowingContinuation { continuation in
            send(method, params, session: session) { continuation.resume(with: $0.mapError { $0 as any Error }) }
        }
    }

    // MARK: Routing

    func register(session: String, target: String, for engine: BlinkDriver) {
        sessions[session] = Weak(engine)
        targets[target] = Weak(engine)
    }

    func forget(session: String?, target: String?) {
        if let session { sessions[session] = nil }
        if let target { targets[target] = nil }
    }

    private func receive(_ batch: [JSONValue]) {
        for message in batch {
            if Self.tracing { let text = message.jsonText; Self.trace("← [\(text.utf8.count)] " + String(text.prefix(300))) }
            if let id = message.int("id") {
                guard let pending = replies.removeValue(forKey: id) else { continue }
                if let error = message["error"] {
                    pending.reply?(.failure(DevToolsError(method: pending.method, code: error.int("code") ?? 0,
                                                          message: error.string("message") ?? "error")))
                } else {
                    pending.reply?(.success(message["result"] ?? .object([:])))
                }
                continue
            }
            guard let method = message.string("method") else { continue }
            let params = message["params"] ?? .object([:])
            if method.hasPrefix("Browser.download") {
                downloadEvents?(method, params)
            } else if let session = message.string("sessionId") {
                sessions[session]?.value?.handle(method, params)
            } else if let target = (method == "Target.targetCreated" ? params["targetInfo"]?.string("openerId") : nil)
                ?? (params["targetInfo"]?.string("type") == "iframe" ? params["targetInfo"]?.string("parentId") : nil)
                ?? params["targetInfo"]?.string("targetId") ?? params.string("targetId") {
                // Browser-level news about a view's target (title changes, renderer crashes) or one
                // of its out-of-process iframes (their origins, for downloads).
                targets[target]?.value?.handleTargetEvent(method, params)
            }
        }
    }

    private func processExited() {
        guard !hasExited else { return }
        hasExited = true
        let pending = replies
        replies.removeAll()
        for (_, entry) in pending.sorted(by: { $0.key < $1.key }) {
            entry.reply?(.failure(DevToolsError(method: entry.method, code: -1, message: "browser exited")))
        }
        for engine in sessions.values.compactMap(\.value) { engine.browserExited() }
        sessions.removeAll()
        targets.removeAll()
        onExit?()
    }

    /// `HYBRID_BLINK_TRACE=1` prints protocol traffic (each message truncated, after its size in bytes) to standard error.
    private static let tracing = ProcessInfo.processInfo.environment["HYBRID_BLINK_TRACE"] != nil
    private static func trace(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

    // MARK: Shutdown

    /// Asks Chromium to close (it flushes cookies to a persistent profile and removes its
    /// singleton files), sends SIGTERM if it has not exited within `timeout` seconds and SIGKILL
    /// two seconds later; returns once it was reaped and its leftovers are gone.
    func shutdown(timeout: Double = 3) async {
        guard !hasExited else { return }
        send("Browser.close")
        if await exited(within: timeout) { return }
        process.signalTerminate()
        if await exited(within: 2) { return }
        kill()
        _ = await exited(within: 5)
    }

    private func exited(within seconds: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !hasExited && Date() < deadline { try? await Task.sleep(nanoseconds: 20_000_000) }
        return hasExited
    }

    /// Kills the browser now (its process group: renderers, GPU and zygotes).
    func kill() {
        process.kill()
    }

    /// Ends the browser cleanly without waiting (see ``BlinkProcess/terminate(grace:)``).
    func terminate() {
        process.terminate()
    }
}

/// A weak reference usable as a dictionary value.
final class Weak<T: AnyObject> {
    weak var value: T?
    init(_ value: T) { self.value = value }
}

/// A weak reference the pipe's threads can carry; only read on the main actor.
final class WeakBox<T: AnyObject>: @unchecked Sendable {
    weak var value: T?
}
#endif
