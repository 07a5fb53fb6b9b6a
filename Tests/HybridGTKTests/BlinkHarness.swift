import Foundation
import HybridBlink
import HybridCore
import HybridTestSupport

/// The Blink engine for the end-to-end suite: one shared browser (provider) for the process,
/// pages served at a real https origin through Fetch interception (Blink cannot navigate to a
/// custom scheme, so `TestPages` are mounted on `https://app.hybrid-test.invalid/`).
@MainActor
enum BlinkHarness {
    private static var shared: BlinkEngineProvider?
    static let origin = "https://app.hybrid-test.invalid"

    static func provider() throws -> BlinkEngineProvider {
        if let shared { return shared }
        let provider = try BlinkEngineProvider()
        shared = provider
        return provider
    }

    static func makeEngine(_ configuration: EngineConfiguration = EngineConfiguration()) throws -> BlinkWebEngine {
        try provider().makeBlinkEngine(configuration)
    }

    /// The URL of `path` on the test origin.
    static func url(_ path: String) -> URL { URL(string: "\(origin)/\(path)")! }

    /// A configuration serving `handler` for every https request of the view.
    static func pages(_ handler: any URLSchemeHandler, scripts: [UserScript] = []) -> EngineConfiguration {
        EngineConfiguration(userScripts: scripts, schemeHandlers: ["https": handler])
    }

    /// Says, visibly, that a test does not apply to Blink and why (never a silent pass).
    static func skip(_ test: String, _ reason: String) {
        print("◇ Blink: skipped \(test): \(reason)")
    }
}

/// A scheme handler that records what it serves, ignoring the favicon Chromium asks for.
@MainActor
final class BlinkPages: URLSchemeHandler {
    let pages: TestPages
    var requests: [SchemeRequest] = []
    init(_ files: [String: String]) { pages = TestPages(files) }
    func respond(to request: SchemeRequest) async throws -> SchemeResponse {
        if request.url.path == "/favicon.ico" { return SchemeResponse(status: 404, contentType: "text/plain", data: Data()) }
        requests.append(request)
        return try await pages.respond(to: request)
    }
}
