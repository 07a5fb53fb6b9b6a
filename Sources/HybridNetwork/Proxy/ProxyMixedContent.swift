import Foundation
import HybridBridge
import HybridBase

/// Mixed-content blocking for proxied requests, as the engines apply it to their own `fetch` and
/// `XMLHttpRequest` (W3C Mixed Content §4.4 "should fetching request be blocked as mixed content").
///
/// A secure document — https, or an offline package served from the container's own scheme,
/// which both engines' page scripts see as a secure context — may not fetch a plain-http URL,
/// unless that URL is potentially trustworthy (Secure Contexts §3.2: `localhost`, `*.localhost`,
/// `127.0.0.0/8`, `[::1]`), which both engines let through. The app may name plain-http hosts as
/// an exception (``ProxyPolicy/mixedContentExceptions``); there is none by default.
public enum ProxyMixedContent {
    /// Whether a document of `origin` would have its request to `url` blocked as mixed content.
    /// - Parameter exceptions: The app's explicit exceptions (``ProxyPolicy/mixedContentExceptions``).
    public static func blocks(_ url: URL, origin: BridgeOrigin?, exceptions: [ConfigURLPattern] = []) -> Bool {
        guard let origin, isSecure(origin), url.scheme?.lowercased() == "http" else { return false }
        if isPotentiallyTrustworthy(host: url.host ?? "") { return false }
        return !exceptions.contains { $0.matches(url) }
    }

    /// A document origin that prohibits mixed content: anything but http (https, a package
    /// scheme); `file:` too, as both engines treat it.
    static func isSecure(_ origin: BridgeOrigin) -> Bool {
        origin.scheme != "http" && origin.scheme != "ws"
    }

    /// Secure Contexts §3.2 for a host of a plain-http URL: loopback names and addresses.
    public static func isPotentiallyTrustworthy(host raw: String) -> Bool {
        let host = raw.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]."))
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.allSatisfy { UInt8($0) != nil } && octets.first == "127"
    }
}
