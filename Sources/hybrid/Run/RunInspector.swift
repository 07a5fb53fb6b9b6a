#if os(Linux)
import Foundation
import Glibc
import HybridBlink
import HybridCore
import HybridServer

/// `hybrid run --inspect`: the engine's own inspector, reachable on loopback only.
///
/// - WebKitGTK: its remote inspector over HTTP (`WEBKIT_INSPECTOR_HTTP_SERVER`, read once, when the
///   first web context is made, so it is set before the provider exists); the view is made with
///   developer extras (``HybridWebViewConfiguration/inspectable``), so its Web Inspector opens in the
///   window too. The listing at the URL opens each page's inspector in a browser.
/// - Blink: Chromium's DevTools endpoint (`--remote-debugging-port`, bound to 127.0.0.1 by
///   Chromium); the port Chromium picked is read from `DevToolsActivePort` in its profile.
enum RunInspector {
    /// Turns WebKit's remote inspector on at a free loopback port before any web context exists.
    /// - Returns: the listing's URL.
    static func prepareWebKit(port: Int?) throws -> URL {
        let port = try port ?? LoopbackPort.free()
        setenv("WEBKIT_INSPECTOR_HTTP_SERVER", "127.0.0.1:\(port)", 1)
        return URL(string: "http://127.0.0.1:\(port)/")!
    }

    /// The arguments that open Chromium's DevTools endpoint on loopback.
    static func blinkArguments(port: Int?) -> [String] {
        ["--remote-debugging-port=\(port ?? 0)", "--remote-debugging-address=127.0.0.1"]
    }

    /// The DevTools endpoint of `provider`'s running browser (`/json/version` answers there), once
    /// Chromium has written the port it listens on; `nil` after `seconds` without one.
    @MainActor
    static func blinkEndpoint(_ provider: BlinkEngineProvider, seconds: Double = 10) async -> URL? {
        guard let profile = provider.profileDirectory else { return nil }
        let file = profile.appendingPathComponent("DevToolsActivePort")
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let text = try? String(contentsOf: file, encoding: .utf8),
               let port = text.split(separator: "\n").first.flatMap({ Int($0) }), port > 0 {
                return URL(string: "http://127.0.0.1:\(port)/json/version")
            }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        return nil
    }
}
#endif
