import Foundation
import HybridBlink
import HybridCore
import HybridGTK
import HybridFixtures
import Testing

/// The engines the end-to-end suite runs on. A parameterised test takes one
/// (`@Test(arguments: EngineKind.allCases)`), makes its views through it, loads the pages of its
/// test origin, and asks it for any capability the test needs (``require(_:_:)``), which skips
/// the test on an engine that lacks it with the reason that engine's provider declares.
///
/// Pages live at one origin per engine: `hybrid-test://HOST/` on WebKit (a custom scheme) and
/// `https://HOST.hybrid-test.invalid/` on Blink, which cannot navigate to custom schemes and
/// serves the same handler at a real https origin through Fetch interception.
enum EngineKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case webkit, blink

    var testDescription: String { rawValue }

    /// The shared provider of this engine (one WebKit context, one Chromium browser per test process).
    @MainActor func provider() throws -> any WebEngineProvider {
        switch self {
        case .webkit: try EngineHarness.provider()
        case .blink: try BlinkSuiteBrowser.provider()
        }
    }

    /// A provider of its own (its own session, processes and cookies). Release it with
    /// ``release(_:)`` so a browser does not outlive the test.
    @MainActor func isolatedProvider(session: EngineSessionKind = .ephemeral) throws -> any WebEngineProvider {
        switch self {
        case .webkit: try EngineHarness.isolatedProvider(session: session)
        case .blink: try BlinkEngineProvider(session: session)
        }
    }

    /// Ends an isolated provider: Chromium closes (flushing a persistent profile). WebKit's
    /// cookies live in its network process, which stores each change in the session's SQLite
    /// database as it applies it; one round trip to that process (reading the store back) is
    /// answered only after every change it received before, so those are on disk by then.
    @MainActor func release(_ provider: any WebEngineProvider) async {
        if let blink = provider as? BlinkEngineProvider {
            await blink.shutdown()
        } else {
            _ = try? await provider.cookieStore.allCookies()
        }
    }

    /// A new view on the shared provider.
    @MainActor func makeEngine(_ configuration: EngineConfiguration = EngineConfiguration()) throws -> any WebEngine {
        try provider().makeEngine(configuration)
    }

    /// The capabilities the engine declares.
    @MainActor var capabilities: EngineCapabilities { (try? provider().capabilities) ?? [] }

    /// The test origin of `host` (`hybrid-test://app`, `https://app.hybrid-test.invalid`).
    func origin(_ host: String = "app") -> String {
        switch self {
        case .webkit: "\(TestPages.scheme)://\(host)"
        case .blink: "https://\(host).hybrid-test.invalid"
        }
    }

    /// The URL of `path` on the test origin of `host`.
    func url(_ path: String, host: String = "app") -> URL { URL(string: "\(origin(host))/\(path)")! }

    /// The scheme the test pages are served on (the handler's key in `schemeHandlers`).
    var pageScheme: String { self == .webkit ? TestPages.scheme : "https" }

    /// A configuration serving `handler` at the test origin.
    func pages(_ handler: any URLSchemeHandler, scripts: [UserScript] = []) -> EngineConfiguration {
        EngineConfiguration(userScripts: scripts, schemeHandlers: [pageScheme: handler])
    }

    /// Skips the running test (or test case) when the engine lacks `capability`, printing the
    /// engine's declared reason; a skipped case is reported as cancelled, never as a pass.
    @MainActor func require(_ capability: EngineCapabilities, _ test: String = #function) throws {
        guard let reason = try provider().limitation(capability) else { return }
        let message = "skipped \(test) on \(rawValue): no \(capability.names.joined(separator: "+")): \(reason)"
        print("◇ \(message)")
        SkipLog.record(message)
        try Test.cancel(Comment(rawValue: message))
    }

    /// Skips the running test case on `engine` for an open bug in that engine's adapter (not a
    /// missing capability), printing `bug`; it is listed with the other skips when the run ends.
    /// `HYBRID_RUN_KNOWN_BUGS=1` runs them anyway, to see whether a fix has cured one.
    @MainActor func skipKnownBug(on engine: EngineKind, _ bug: String, _ test: String = #function) throws {
        guard self == engine, ProcessInfo.processInfo.environment["HYBRID_RUN_KNOWN_BUGS"] != "1" else { return }
        let message = "skipped \(test) on \(rawValue): known bug: \(bug)"
        print("◇ \(message)")
        SkipLog.record(message)
        try Test.cancel(Comment(rawValue: message))
    }
}

/// The Chromium browser the suite shares (started on first use, closed when the suite ends).
@MainActor
enum BlinkSuiteBrowser {
    private static var shared: BlinkEngineProvider?

    static func provider() throws -> BlinkEngineProvider {
        if let shared { return shared }
        let provider = try BlinkEngineProvider()
        shared = provider
        return provider
    }
}

/// A scheme handler that records every request it serves (not the favicon engines ask for).
@MainActor
final class RecordingPages: URLSchemeHandler {
    let pages: TestPages
    var requests: [SchemeRequest] = []
    init(_ files: [String: String]) { pages = TestPages(files) }
    func respond(to request: SchemeRequest) async throws -> SchemeResponse {
        if request.url.path == "/favicon.ico" { return SchemeResponse(status: 404, contentType: "text/plain", data: Data()) }
        requests.append(request)
        return try await pages.respond(to: request)
    }
}

/// Every skip of the run, printed again as a summary when the suite ends (the console reporter
/// counts a cancelled test case as passed, so the summary says what did not run).
enum SkipLog {
    private static let skips = Locked<[String]>([])

    static func record(_ message: String) { skips.mutate { $0.append(message) } }

    /// Prints the summary (from an `atexit` hook in main.swift).
    static func printSummary() {
        let all = skips.value
        guard !all.isEmpty else { return }
        let bugs = all.filter { $0.contains(": known bug: ") }.count
        let environment = all.filter { $0.contains(": no DISPLAY: ") }.count
        print("◇ \(all.count) test case(s) did not run: \(all.count - bugs - environment) for a capability their engine lacks, \(bugs) for a known engine-adapter bug, \(environment) for the environment (no display):")
        for message in all { print("  ◇ \(message)") }
    }
}
