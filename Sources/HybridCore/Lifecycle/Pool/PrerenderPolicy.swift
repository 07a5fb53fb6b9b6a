import Foundation
import HybridBase

/// What a ``WebViewPool`` may prerender (``WebViewPool/prerender(_:)``) and for how long: which
/// origins, how many pages at once, when an unused one is discarded, and which bridge modules
/// wait for the page's activation.
///
/// Its decisions are values, so a unit test drives them without a view.
public struct PrerenderPolicy: Sendable, Equatable {
    /// Pages prerendered at once; asking for one more discards the oldest. Default 2.
    public var limit: Int
    /// Seconds an unused prerender is kept before it is discarded. Default 30.
    public var timeout: Double
    /// The http(s) origins whose pages may be prerendered. Empty, the default, admits none: only
    /// the pool's offline package (its scheme) is prerendered unless the app lists an origin.
    public var allowedOrigins: [OriginPattern]
    /// Bridge modules whose calls change something the user would see or pay for (payments,
    /// navigation, UI, storage writes): a prerendered page's calls to them wait until it is shown,
    /// and fail if it is discarded instead. Default `navigation` and `ui`.
    public var effectfulModules: Set<String>
    /// Whether the pages of the pool's views may ask for prerenders of their own origin's pages
    /// (`<script type="speculationrules">` prerender lists, `hybrid.prerender(url)`), within
    /// this policy. Off by default: only the app asks.
    public var pagesMayPrerender: Bool

    /// A policy; by default two pages, 30 seconds, no network origin, `navigation` and `ui`
    /// effectful, pages may not ask.
    public init(limit: Int = 2, timeout: Double = 30, allowedOrigins: [OriginPattern] = [],
                effectfulModules: Set<String> = ["navigation", "ui"], pagesMayPrerender: Bool = false) {
        self.limit = limit
        self.timeout = timeout
        self.allowedOrigins = allowedOrigins
        self.effectfulModules = effectfulModules
        self.pagesMayPrerender = pagesMayPrerender
    }

    /// Why `url` may not be prerendered by a pool whose package is served on `packageScheme`;
    /// `nil` when it may. A package page is the pool's own; an http(s) page needs its origin in
    /// ``allowedOrigins``; anything else (file:, data:, another custom scheme) is refused.
    public func refusal(for url: URL, packageScheme: String?) -> String? {
        guard limit > 0 else { return "prerendering is off (limit 0)" }
        guard let scheme = url.scheme?.lowercased() else { return "the URL has no scheme" }
        if let packageScheme, scheme == packageScheme.lowercased() { return nil }
        guard scheme == "http" || scheme == "https" else { return "\(scheme): pages are not prerendered" }
        guard let origin = BridgeOrigin(url: url), allowedOrigins.contains(where: { $0.matches(origin) }) else {
            return "origin \(BridgeOrigin(url: url)?.description ?? "?") is not allowed to be prerendered"
        }
        return nil
    }

    /// The key a prerender is kept by and an open is matched with: the URL without its fragment
    /// (a fragment does not make another document).
    public static func key(for url: URL) -> String {
        let text = url.absoluteString
        return text.firstIndex(of: "#").map { String(text[..<$0]) } ?? text
    }

    /// Why a page of `pageOrigin` may not ask for `url` (speculation rules, `hybrid.prerender`):
    /// pages may not ask, another origin, or what ``refusal(for:packageScheme:)`` says; `nil` when it may.
    public func pageRefusal(for url: URL, from pageOrigin: BridgeOrigin?, packageScheme: String?) -> String? {
        guard pagesMayPrerender else { return "pages may not ask for prerenders" }
        guard let pageOrigin, BridgeOrigin(url: url) == pageOrigin else { return "not the page's own origin" }
        return refusal(for: url, packageScheme: packageScheme)
    }

    /// How many of `count` kept prerenders to discard, oldest first, before one more starts.
    public func evictions(keeping count: Int) -> Int { max(0, count - (limit - 1)) }
}
