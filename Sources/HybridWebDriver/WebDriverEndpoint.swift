import Foundation
import HybridCore

/// A W3C WebDriver endpoint for HybridKit containers: a stock client (Selenium, WebdriverIO)
/// drives a ``HybridWebView`` — the real page in the real container, with its bridge, packages,
/// cookie jar and request proxy — as it drives a browser (docs/testing.md).
///
/// The endpoint is the protocol: routing, sessions, element references, errors and the W3C
/// JSON shapes. It listens on nothing itself: a loopback listener hands it each request
/// (``respond(to:)``) — `hybrid webdriver` uses HybridServer's. Every command maps onto the
/// engine seam (scripts in the page, the container's cookie jar and dialog path, the engine's
/// snapshot), so the same endpoint drives every engine.
///
/// Automation is never on by default and a page cannot turn it on:
/// - An app has an endpoint only if it links this product and makes one; each session's view
///   must be made with ``HybridWebViewConfiguration/allowsAutomation`` (off by default), or the
///   session is refused.
/// - Every request must carry the endpoint's ``token`` as the first path segment
///   (`http://127.0.0.1:PORT/TOKEN/session`, which Selenium's remote URL carries as it is), name a
///   loopback `Host` with the endpoint's port (no DNS rebinding), and have no `Origin` header
///   (a browser sends one with a page's request; a WebDriver client never does).
///
/// ```swift
/// let endpoint = WebDriverEndpoint(port: server.port) { capabilities in
///     var configuration = HybridWebViewConfiguration(modules: modules)
///     configuration.allowsAutomation = true               // debug builds only
///     return WebDriverSessionContent(view: try HybridWebView(provider: provider, configuration: configuration))
/// }
/// print(endpoint.url)                                     // give this to the test runner
/// ```
@MainActor
public final class WebDriverEndpoint {
    /// The `browserName` sessions report and accept.
    public nonisolated static let browserName = "hybridkit"

    /// Makes the view of a new session from its capabilities.
    public typealias SessionFactory = @MainActor (WebDriverCapabilities) async throws -> WebDriverSessionContent

    /// The secret every request carries as its first path segment.
    public let token: String
    /// The loopback port the listener is bound to (checked against `Host`).
    public let port: Int
    private let makeSession: SessionFactory
    private var sessions: [String: WebDriverSession] = [:]

    /// An endpoint for a listener bound to `127.0.0.1:port`.
    /// - Parameters:
    ///   - token: The secret; by default 32 random bytes in hex from the system's CSPRNG.
    ///   - makeSession: Makes each new session's view; its errors refuse the session.
    public init(port: Int, token: String = WebDriverEndpoint.makeToken(), makeSession: @escaping SessionFactory) {
        self.port = port
        self.token = token
        self.makeSession = makeSession
    }

    /// 32 random bytes from the system's cryptographic generator, in hex.
    public nonisolated static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
    }

    /// The URL a client is given: `http://127.0.0.1:PORT/TOKEN` (Selenium's `command_executor`).
    public var url: URL { URL(string: "http://127.0.0.1:\(port)/\(token)")! }

    /// How many sessions are open.
    public var sessionCount: Int { sessions.count }

    /// Answers one HTTP request.
    public func respond(to request: WebDriverRequest) async -> WebDriverResponse {
        if let refusal = refusal(of: request) { return refusal }
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true).dropFirst()
            .map { String($0).removingPercentEncoding ?? String($0) }
        let body: JSONValue
        do {
            body = try Self.body(of: request)
        } catch {
            return .failure(WebDriverError.wrapping(error))
        }
        switch WebDriverCommand.route(method: request.method, segments: Array(segments)) {
        case .failure(let error): return .failure(error)
        case .success((.status, _)):
            return .success(["ready": true, "message": .string("HybridKit WebDriver: \(sessions.count) session(s)")])
        case .success((.newSession, _)):
            do { return .success(try await newSession(body)) } catch { return .failure(WebDriverError.wrapping(error)) }
        case .success((let command, let id?)):
            guard let session = sessions[id], !session.ended else {
                sessions[id] = nil
                return .failure(WebDriverError(.invalidSessionID, "no session \(id)"))
            }
            if command == .deleteSession {
                endSession(id)
                return .success(.null)
            }
            do {
                let value = try await session.perform(command, body: body)
                if session.ended { sessions[id] = nil }
                return .success(value)
            } catch {
                return .failure(WebDriverError.wrapping(error))
            }
        case .success((let command, nil)):
            return .failure(WebDriverError(.unknownCommand, "\(command) needs a session"))
        }
    }

    /// Ends every session (the listener is stopping).
    public func endAll() {
        for id in Array(sessions.keys) { endSession(id) }
    }

    private func endSession(_ id: String) {
        sessions.removeValue(forKey: id)?.end()
    }

    private func newSession(_ body: JSONValue) async throws -> JSONValue {
        let capabilities = try WebDriverCapabilities.negotiate(body)
        let content: WebDriverSessionContent
        do {
            content = try await makeSession(capabilities)
        } catch let error as WebDriverError {
            throw error
        } catch {
            throw WebDriverError(.sessionNotCreated, "\(error)")
        }
        guard content.view.configuration.allowsAutomation else {
            content.view.close()
            content.onEnd()
            throw WebDriverError(.sessionNotCreated, "the view's configuration does not allow automation (HybridWebViewConfiguration.allowsAutomation)")
        }
        let id = UUID().uuidString.lowercased()
        let session = WebDriverSession(id: id, content: content, capabilities: capabilities)
        sessions[id] = session
        // The first page (a package's entry, a URL) may not even have started: wait as a navigation would.
        if capabilities.pageLoadStrategy != .none, content.view.hasNavigated {
            do {
                try await session.waitForFirstPage()
            } catch {
                endSession(id)
                throw error
            }
        }
        let returned: [String: JSONValue] = [
            "browserName": .string(Self.browserName),
            "browserVersion": .string(BridgeRouter.version),
            "platformName": .string(Self.platformName),
            "acceptInsecureCerts": false,
            "pageLoadStrategy": .string(capabilities.pageLoadStrategy.rawValue),
            "unhandledPromptBehavior": .string(capabilities.promptBehavior.rawValue),
            "setWindowRect": false,
            "strictFileInteractability": false,
            "timeouts": capabilities.timeouts.json,
            "proxy": .object([:]),
            "hybrid:engine": .string(content.view.engine.engineName),
        ]
        return ["sessionId": .string(id), "capabilities": .object(returned)]
    }

    private static var platformName: String {
        #if os(Linux)
        "linux"
        #elseif os(iOS)
        "ios"
        #else
        "mac"
        #endif
    }

    /// A refusal for a request without the token, from a non-loopback `Host`, or with an `Origin`.
    private func refusal(of request: WebDriverRequest) -> WebDriverResponse? {
        let forbidden = { (why: String) in
            WebDriverResponse(status: 403, body: ["value": ["error": "unknown error", "message": .string(why), "stacktrace": ""]])
        }
        let first = request.path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: true).first.map(String.init) ?? ""
        guard Self.constantTimeEqual(first, token) else {
            return forbidden("this endpoint needs its token as the first path segment (http://127.0.0.1:\(port)/TOKEN/…)")
        }
        let hosts = ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]
        guard let host = request.host?.lowercased(), hosts.contains(host) else {
            return forbidden("Host must be a loopback address with port \(port)")
        }
        if request.origin != nil { return forbidden("requests from web pages (with an Origin header) are refused") }
        return nil
    }

    private static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func body(of request: WebDriverRequest) throws -> JSONValue {
        guard request.method.uppercased() == "POST" else { return .object([:]) }
        guard !request.body.isEmpty else { throw WebDriverError(.invalidArgument, "a POST needs a JSON object body") }
        guard let text = String(data: request.body, encoding: .utf8), let value = try? JSONValue(jsonText: text),
              case .object = value else {
            throw WebDriverError(.invalidArgument, "the body is not a JSON object")
        }
        return value
    }
}
