import Foundation
import HybridBridge
import HybridBase

/// The `Referer` the engine sends (the Referrer Policy standard), for each hop of a proxied request.
enum ProxyReferrer {
    /// The header for a request to `target` whose referrer is `source` under `policy`; `nil` for none.
    ///
    /// The source is stripped of its fragment and credentials; only http(s) sources give a
    /// referrer (a page of an offline package, `app://…`, sends none, as the engine does).
    static func header(source: String?, policy: String?, target: URL) -> String? {
        guard let source, var parts = URLComponents(string: source),
              let scheme = parts.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        parts.fragment = nil
        parts.user = nil
        parts.password = nil
        guard let full = parts.url?.absoluteString, let sourceURL = parts.url, let origin = BridgeOrigin(url: sourceURL) else { return nil }
        let originOnly = origin.description + "/"
        let sameOrigin = BridgeOrigin(url: target) == origin
        let downgrade = scheme == "https" && target.scheme?.lowercased() != "https"
        switch policy ?? "" {
        case "no-referrer": return nil
        case "unsafe-url": return full
        case "origin": return originOnly
        case "same-origin": return sameOrigin ? full : nil
        case "strict-origin": return downgrade ? nil : originOnly
        case "origin-when-cross-origin": return sameOrigin ? full : originOnly
        case "no-referrer-when-downgrade": return downgrade ? nil : full
        default: return sameOrigin ? full : downgrade ? nil : originOnly   // strict-origin-when-cross-origin
        }
    }
}
