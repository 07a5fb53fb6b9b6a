import Foundation
import HybridBridge
import HybridBase

/// The `Sec-Fetch-*` request headers the engine sends (Fetch Metadata), so a server that
/// decides by them treats a proxied request as it treats the engine's.
enum ProxyFetchMetadata {
    /// The headers for a hop to `url` of a request from `origin` in `mode`, or none when the
    /// URL is not potentially trustworthy (the engines send them to https and loopback only).
    /// - Parameter crossSite: Whether an earlier hop was cross-site already.
    static func headers(url: URL, origin: BridgeOrigin?, mode: String?, crossSite: Bool) -> [(String, String)] {
        guard let origin, isTrustworthy(url) else { return [] }
        let navigate = mode == "navigate"
        return [
            ("Sec-Fetch-Dest", navigate ? "document" : "empty"),
            ("Sec-Fetch-Mode", mode ?? "cors"),
            ("Sec-Fetch-Site", site(url: url, origin: origin, crossSite: crossSite)),
        ]
    }

    /// `same-origin`, `same-site` (the same scheme and the same site: the same host on another
    /// port, or two hosts of one registrable domain, `a.example.com` and `b.example.com`, by the
    /// Public Suffix List, so `a.github.io` and `b.github.io` are not) or `cross-site`.
    static func site(url: URL, origin: BridgeOrigin, crossSite: Bool) -> String {
        guard !crossSite, let target = BridgeOrigin(url: url) else { return "cross-site" }
        if target == origin { return "same-origin" }
        return target.scheme == origin.scheme && PublicSuffixList.isSameSite(target.host, origin.host) ? "same-site" : "cross-site"
    }

    /// https, or a loopback host.
    static func isTrustworthy(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        if scheme == "https" || scheme == "wss" { return true }
        let host = (url.host ?? "").lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host == "localhost" || host.hasSuffix(".localhost") || host.hasPrefix("127.") || host == "::1"
    }
}
