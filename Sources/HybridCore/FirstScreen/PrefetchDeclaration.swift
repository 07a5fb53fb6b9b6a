import Foundation
import HybridBridge
import HybridBase

/// A data request declared in a remote-config rule (`features.prefetch`): the container starts it
/// when the app opens one of the rule's pages and hands it to that page once (see ``DataPrefetcher``).
///
/// ```json
/// { "id": "item", "match": "https://m.example.com/item/*",
///   "features": { "prefetch": [
///     { "key": "item", "url": "https://api.example.com/item?id={query.id}",
///       "headers": { "Accept": "application/json" }, "withCookies": true, "maxAge": 10,
///       "keep": { "maxAge": 60, "maxStale": 86400 } } ] } }
/// ```
///
/// Checked when the document is validated (``validate(rule:)``, failing with
/// ``ConfigFailure/invalidPrefetch(rule:key:reason:)``): the method is `GET`; the URL is http(s)
/// and its scheme, host and port are written out (a `{query.NAME}` placeholder may stand only in
/// the path or the query, so a page's query cannot send the request, and the app's cookies, to
/// another host); no `Cookie` or `Host` header (cookies come from the app's jar); `maxAge` within
/// 0–300 s; a `keep` as ``PrefetchKeep/invalidReason`` says. And when a view is made for it, the
/// target must be an origin the app lets remote config prefetch from
/// (``FeatureProvisions/prefetchTargets``), or it is never started.
public struct PrefetchDeclaration: Sendable, Hashable, Codable {
    /// The name a page asks for it by (`hybrid.prefetched(key)`), `[A-Za-z0-9._-]`, unique in its rule.
    public var key: String
    /// The request URL template: `{query.NAME}` is replaced by the page URL's query parameter NAME.
    public var url: String
    /// `GET`, the only method a prefetch makes (it must be safe to make twice).
    public var method: String
    /// Request headers by name.
    public var headers: [String: String]
    /// Whether the request carries the app's cookies for its URL.
    public var withCookies: Bool
    /// Seconds a response may wait for its page.
    public var maxAge: Double
    /// The pages that make the request; `nil` = every page of the rule (its `match`).
    public var pages: ConfigURLPattern?
    /// Whether the response is kept on disk for later opens (stale-while-revalidate); `nil`: never.
    public var keep: PrefetchKeep?

    /// The longest ``maxAge`` a document may declare, in seconds.
    public static let maximumAge: Double = 300
    /// Headers a declaration may not set: the app's jar supplies cookies, the URL the host.
    public static let forbiddenHeaders: Set<String> = ["cookie", "cookie2", "host", "content-length", "transfer-encoding"]

    /// A declaration; see the type's documentation for what ``validate(rule:)`` requires.
    public init(key: String, url: String, method: String = "GET", headers: [String: String] = [:], withCookies: Bool = true,
                maxAge: Double = 10, pages: ConfigURLPattern? = nil, keep: PrefetchKeep? = nil) {
        self.key = key
        self.url = url
        self.method = method
        self.headers = headers
        self.withCookies = withCookies
        self.maxAge = maxAge
        self.pages = pages
        self.keep = keep
    }

    private enum CodingKeys: String, CodingKey { case key, url, method, headers, withCookies, maxAge, pages, keep }

    /// Decodes a declaration; `method` defaults to `GET`, `withCookies` to true, `maxAge` to 10 s.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        key = try c.decode(String.self, forKey: .key)
        url = try c.decode(String.self, forKey: .url)
        method = try c.decodeIfPresent(String.self, forKey: .method) ?? "GET"
        headers = try c.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
        withCookies = try c.decodeIfPresent(Bool.self, forKey: .withCookies) ?? true
        maxAge = try c.decodeIfPresent(Double.self, forKey: .maxAge) ?? 10
        pages = try c.decodeIfPresent(ConfigURLPattern.self, forKey: .pages)
        keep = try c.decodeIfPresent(PrefetchKeep.self, forKey: .keep)
    }

    /// Checks the declaration for rule `rule`.
    /// - Throws: ``ConfigFailure/invalidPrefetch(rule:key:reason:)``.
    public func validate(rule: String) throws {
        func bad(_ reason: String) -> HybridError { .cfg(.invalidPrefetch(rule: rule, key: key, reason: reason)) }
        guard ConfigRule.isValidID(key) else { throw bad("the key must be 1–64 of [A-Za-z0-9._-]") }
        guard method == "GET" else { throw bad("method \(method): a prefetch is a GET (it must be safe to make twice)") }
        guard maxAge.isFinite, maxAge > 0, maxAge <= Self.maximumAge else {
            throw bad("maxAge \(maxAge) is not within 0–\(Int(Self.maximumAge)) s")
        }
        if let reason = keep?.invalidReason { throw bad(reason) }
        for (name, value) in headers {
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else { throw bad("bad header name '\(name)'") }
            guard !Self.forbiddenHeaders.contains(name.lowercased()) else { throw bad("header \(name) may not be set by config") }
            // Scalars, not Characters: "\r\n" is one Character, equal to neither "\r" nor "\n".
            guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                throw bad("header \(name) has a line break")
            }
        }
        _ = try target(rule: rule)
    }

    /// The origin every request of the declaration goes to, whatever the page's query.
    /// - Throws: ``ConfigFailure/invalidPrefetch(rule:key:reason:)`` when the template is not an
    ///   http(s) URL, or a placeholder stands in its scheme, host or port, or is not `{query.NAME}`.
    public func target(rule: String) throws -> BridgeOrigin {
        func bad(_ reason: String) -> HybridError { .cfg(.invalidPrefetch(rule: rule, key: key, reason: reason)) }
        guard let separator = url.range(of: "://") else { throw bad("url '\(url)' is not an http(s) URL") }
        let afterAuthority = url[separator.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? url.endIndex
        if let brace = url.firstIndex(where: { $0 == "{" || $0 == "}" }), brace < afterAuthority {
            throw bad("url '\(url)': a placeholder may stand only in the path or the query, never in the scheme, host or port")
        }
        var rest = url[afterAuthority...]
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}"), rest[open..<close].hasPrefix("{query."),
                  rest.index(open, offsetBy: 7) < close else {
                throw bad("url '\(url)': placeholders are {query.NAME}")
            }
            rest = rest[rest.index(after: close)...]
        }
        guard let parsed = URL(string: String(url[..<afterAuthority])), let scheme = parsed.scheme?.lowercased(),
              scheme == "http" || scheme == "https", parsed.host?.isEmpty == false,
              parsed.user == nil, parsed.password == nil, let origin = BridgeOrigin(url: parsed) else {
            throw bad("url '\(url)' is not an http(s) URL with a host (and no user or password)")
        }
        return origin
    }

    /// The rule a ``DataPrefetcher`` runs for this declaration, for `pages` unless the declaration
    /// names its own, when the app allows its target.
    /// - Throws: ``ConfigFailure/prefetchTargetNotAllowed(key:origin:)`` when no pattern of
    ///   `allowedTargets` matches its target, and what ``target(rule:)`` throws.
    public func prefetchRule(pages rulePages: ConfigURLPattern, allowedTargets: [OriginPattern], rule: String) throws -> PrefetchRule {
        let origin = try target(rule: rule)
        guard allowedTargets.contains(where: { $0.matches(origin) }) else {
            throw HybridError.cfg(.prefetchTargetNotAllowed(key: key, origin: origin.description))
        }
        return PrefetchRule(pages: pages ?? rulePages, key: key, url: url,
                            headers: headers.sorted { $0.key < $1.key }.map { [$0.key, $0.value] },
                            withCookies: withCookies, maxAge: maxAge, keep: keep)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7a)
            || "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
}

extension PrefetchDeclaration {
    /// Checks a rule's declarations: each one, and no key twice.
    /// - Throws: ``ConfigFailure/invalidPrefetch(rule:key:reason:)``.
    public static func validate(_ declarations: [PrefetchDeclaration], rule: String) throws {
        var keys = Set<String>()
        for declaration in declarations {
            try declaration.validate(rule: rule)
            guard keys.insert(declaration.key).inserted else {
                throw HybridError.cfg(.invalidPrefetch(rule: rule, key: declaration.key, reason: "the key is used twice"))
            }
        }
    }
}

extension FeatureSet {
    /// These features with every prefetch declaration that names no pages bound to `pages` (the
    /// pattern of the rule that decided), so a view made for the decision prefetches for the
    /// rule's pages only.
    public func prefetching(for pages: ConfigURLPattern) -> FeatureSet {
        var features = self
        for index in features.prefetch.indices where features.prefetch[index].pages == nil {
            features.prefetch[index].pages = pages
        }
        return features
    }
}
