import Foundation
import HybridBridge
import HybridBase

/// The bridge side of data prefetch: `hybrid.prefetched(key)` (and the page script's transparent
/// `fetch`) take a response ``DataPrefetcher`` started when the app opened the page.
///
/// Register it with the prefetcher's page script; only `allowedOrigins` may take anything, and
/// a page takes only what was started for its own origin:
///
/// ```swift
/// let prefetcher = try DataPrefetcher(rules: [PrefetchRule(pages: try ConfigURLPattern("app://m.example.com/item/*"),
///     key: "item", url: "https://api.example.com/item?id={query.id}")], jar: jar)
/// configuration.modules.append(PrefetchModule(prefetcher: prefetcher, allowedOrigins: ["app://m.example.com"]))
/// configuration.engine.userScripts.append(prefetcher.userScript)
/// prefetcher.start(for: url)      // when the app opens the page, before the view loads it
/// view.load(url)
/// ```
public struct PrefetchModule: BridgeModule {
    /// `prefetch`.
    public static let moduleName = "prefetch"
    /// `prefetch`.
    public let name = PrefetchModule.moduleName
    /// The origins whose pages may take prefetched responses (only their own).
    public let allowedOrigins: [OriginPattern]
    /// Where the responses come from.
    public let prefetcher: DataPrefetcher

    /// What `take` receives.
    struct Take: Codable, Sendable {
        var key: String
        /// The asking document's URL.
        var page: String
        var withCookies: Bool?
    }

    /// A module handing `prefetcher`'s responses to pages of `allowedOrigins`.
    public init(prefetcher: DataPrefetcher, allowedOrigins: [OriginPattern]) {
        self.prefetcher = prefetcher
        self.allowedOrigins = allowedOrigins
    }

    /// `take {key, page, withCookies?}` → the response, or `null`; `kept` (same params) → the
    /// kept response at once, `{response, age, stale, refreshing}`, or `null`; `fresh` (same
    /// params) → the network's response, `{response, age, …}`, or `null` when none was asked
    /// for, failing with the request's error.
    public var actions: [BridgeAction] {
        let prefetcher = prefetcher
        return [
            Action("take") { (params: Take, context) in
                await prefetcher.take(params.key, page: params.page, withCookies: params.withCookies, origin: context.origin)
            },
            Action("kept") { (params: Take, context) in
                prefetcher.kept(params.key, page: params.page, withCookies: params.withCookies, origin: context.origin)
            },
            Action("fresh") { (params: Take, context) in
                try await prefetcher.fresh(params.key, page: params.page, withCookies: params.withCookies, origin: context.origin)
            },
        ]
    }
}
