import Foundation
import HybridNetwork
import HybridBridge
import HybridBase
import HybridEngine

/// A data request a page makes as soon as it runs, declared by the app (or a remote-config
/// rule) so the container can start it when the app *opens* the page, in parallel with handing
/// out the view and loading the package — the template/data split VasSonic made known.
public struct PrefetchRule: Sendable, Hashable {
    /// The pages that make this request.
    public var pages: ConfigURLPattern
    /// The name a page asks for it by: `hybrid.prefetched(key)`.
    public var key: String
    /// The request URL; `{query.NAME}` is replaced by the page URL's query parameter NAME
    /// (percent-encoded; empty when the page has none), e.g. `https://api.example.com/item?id={query.id}`.
    public var url: String
    /// `[name, value]` request headers.
    public var headers: [[String]]
    /// Whether the request carries the app's cookies for its URL (as the page's own request would
    /// with `credentials: 'include'`, or same-origin). A page request whose credentials differ is
    /// never answered from it.
    public var withCookies: Bool
    /// Seconds a response may wait for its page; older ones are discarded.
    public var maxAge: Double
    /// Whether, and how long, the response is kept on disk for later opens (stale-while-revalidate:
    /// ``PrefetchKeep``); `nil`: never kept.
    public var keep: PrefetchKeep?

    /// A rule; a prefetch is always a `GET` without a body (it must be safe to make twice).
    public init(pages: ConfigURLPattern, key: String, url: String, headers: [[String]] = [], withCookies: Bool = true,
                maxAge: Double = 10, keep: PrefetchKeep? = nil) {
        self.pages = pages
        self.key = key
        self.url = url
        self.headers = headers
        self.withCookies = withCookies
        self.maxAge = maxAge
        self.keep = keep
    }

    /// The request URL for `page`, or `nil` when the template does not make an http(s) URL.
    public func requestURL(for page: URL) -> URL? {
        let query = URLComponents(url: page, resolvingAgainstBaseURL: false)?.queryItems ?? []
        var text = url
        while let open = text.range(of: "{query."), let close = text.range(of: "}", range: open.upperBound..<text.endIndex) {
            let name = String(text[open.upperBound..<close.lowerBound])
            let value = query.first { $0.name == name }?.value ?? ""
            text.replaceSubrange(open.lowerBound..<close.upperBound, with: value.addingPercentEncoding(withAllowedCharacters: .prefetchValue) ?? "")
        }
        guard let result = URL(string: text), let scheme = result.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        return result
    }
}

/// Starts the data requests a page will make when the app opens it, and hands each one to that
/// page once: through `hybrid.prefetched(key)`, or transparently when the page's own `fetch`
/// asks for the same URL with the same credentials.
///
/// What a prefetched response never does: answer another origin than the page's, another URL,
/// other credentials, a second time, or after ``PrefetchRule/maxAge``. A prefetch that fails or
/// is not there yet costs the page nothing: its own request is made as usual, or waits for the
/// one in flight (never a second request).
public final class DataPrefetcher: Sendable {
    /// The rules, in order.
    public let rules: [PrefetchRule]
    /// Where rules with a ``PrefetchRule/keep`` keep their responses; `nil` when no rule keeps any.
    public let keepStore: PrefetchKeepStore?
    private let withCookies: RequestProxy
    private let withoutCookies: RequestProxy
    private let entries = LockedState<[Entry]>([])
    private let clock: @Sendable () -> Date

    fileprivate struct Entry: Sendable {
        let origin: BridgeOrigin?
        /// The page it was started for, without its fragment.
        let page: String
        let key: String
        let withCookies: Bool
        let expires: Date
        /// What the keep store had for it (fresh or stale).
        let kept: PrefetchKeepStore.Kept?
        /// The request, when one was made (none when the kept response was fresh).
        let network: Task<Result<Arrival, HybridError>, Never>?
        /// What is pushed into the document: the network's response, or the kept one when it was fresh.
        let pushed: Task<Arrival?, Never>

        /// The freshest response there will be: the network's, or the kept one when no request
        /// was needed (fresh) or the request failed.
        var response: ProxyResponse? {
            get async { await pushed.value?.response ?? kept?.response }
        }
    }

    /// A response and when it arrived from the network.
    struct Arrival: Sendable {
        let response: ProxyResponse
        let received: Date
    }

    /// A prefetched response with its age: what `hybrid.prefetched(key, {stale: true})` receives.
    public struct PrefetchCopy: Codable, Sendable, Hashable {
        /// The response.
        public var response: ProxyResponse
        /// Seconds since it arrived from the network.
        public var age: Double
        /// Whether it is a kept response older than the rule's ``PrefetchKeep/maxAge``.
        public var stale: Bool
        /// Whether a request for a fresher one was made (its response is what ``DataPrefetcher/fresh(_:page:withCookies:origin:)`` gives).
        public var refreshing: Bool
    }

    /// A prefetcher making its requests natively with `jar`'s cookies (as the request proxy does),
    /// keeping the responses of rules with a ``PrefetchRule/keep`` in `keepStore`'s directory.
    public convenience init(rules: [PrefetchRule], jar: CookieJar?,
                            keepStore: ProxyCache.Configuration = PrefetchKeepStore.defaultConfiguration) throws {
        try self.init(rules: rules, jar: jar, keepStore: keepStore, clock: { Date() })
    }

    init(rules: [PrefetchRule], jar: CookieJar?, keepStore: ProxyCache.Configuration = PrefetchKeepStore.defaultConfiguration,
         clock: @escaping @Sendable () -> Date) throws {
        self.rules = rules
        let policy = try ProxyPolicy(requests: ["*"])
        withCookies = RequestProxy(policy: policy, jar: jar)
        withoutCookies = RequestProxy(policy: policy, jar: nil)
        self.keepStore = rules.contains { $0.keep != nil } ? PrefetchKeepStore(configuration: keepStore) : nil
        self.clock = clock
    }

    /// Starts every request the rules declare for `page` (call it when the app opens the page,
    /// before or while the view loads). A request already started for the same page and key and
    /// not yet taken or expired is not made again. Returns the keys started.
    ///
    /// A rule with a ``PrefetchRule/keep`` first looks in the keep store: a fresh kept response
    /// is the answer (no request); a stale one is handed out at once while the request is made;
    /// a `2xx` response the request brings replaces what was kept.
    @discardableResult
    public func start(for page: URL) -> [String] {
        let now = clock(), origin = BridgeOrigin(url: page), pageText = Self.withoutFragment(page.absoluteString)
        return entries.withLock { entries in
            entries.removeAll { $0.expires <= now }
            let started = rules.filter { $0.pages.matches(page) }.compactMap { rule -> Entry? in
                guard let url = rule.requestURL(for: page),
                      !entries.contains(where: { $0.origin == origin && $0.page == pageText && $0.key == rule.key }) else { return nil }
                return entry(for: rule, url: url, origin: origin, page: pageText, now: now)
            }
            entries += started
            return started.map(\.key)
        }
    }

    private func entry(for rule: PrefetchRule, url: URL, origin: BridgeOrigin?, page: String, now: Date) -> Entry {
        let proxy = rule.withCookies ? withCookies : withoutCookies
        let request = ProxyRequest(url: url.absoluteString, method: "GET", headers: rule.headers)
        let expires = now.addingTimeInterval(rule.maxAge)
        // The cookies this request will carry are part of its key: another identity finds nothing.
        let keeping = rule.keep.flatMap { keep in
            keepStore.map { store in
                (store, keep, PrefetchKeepStore.identity(origin: origin, headers: rule.headers,
                                                         cookie: rule.withCookies ? proxy.jar?.cookieHeader(for: url) : nil))
            }
        }
        let kept = keeping.flatMap { store, keep, identity in store.lookup(url: url, identity: identity, keep: keep, now: now) }
        if let kept, !kept.stale {
            return Entry(origin: origin, page: page, key: rule.key, withCookies: rule.withCookies, expires: expires, kept: kept,
                         network: nil, pushed: Task { Arrival(response: kept.response, received: kept.received) })
        }
        let clock = self.clock
        let network = Task { () -> Result<Arrival, HybridError> in
            let sent = clock()
            do {
                let response = try await proxy.perform(request)
                let received = clock()
                if let (store, _, identity) = keeping { store.keep(response, url: url, identity: identity, sent: sent, received: received) }
                return .success(Arrival(response: response, received: received))
            } catch let error as HybridError {
                return .failure(error)
            } catch {
                return .failure(.network(.requestFailed("\(error)")))
            }
        }
        return Entry(origin: origin, page: page, key: rule.key, withCookies: rule.withCookies, expires: expires, kept: kept,
                     network: network, pushed: Task { try? await network.value.get() })
    }

    /// `arrival` with its age now.
    func copy(_ arrival: Arrival, stale: Bool = false, refreshing: Bool) -> PrefetchCopy {
        PrefetchCopy(response: arrival.response, age: max(0, clock().timeIntervalSince(arrival.received)), stale: stale, refreshing: refreshing)
    }

    /// Takes the response started by `key` for `page` (its fragment ignored) of `origin`, waiting
    /// for one still in flight. With `withCookies`, only a response made with those credentials
    /// (a page request that would carry cookies is never answered by one made without, nor the
    /// reverse). `nil` when there is none: never started, another page or origin, other
    /// credentials, taken already, expired, or it failed (with nothing kept).
    public func take(_ key: String, page: String, withCookies: Bool? = nil, origin: BridgeOrigin?) async -> ProxyResponse? {
        await remove(key, page: page, withCookies: withCookies, origin: origin)?.response
    }

    /// The kept response for `key` of `page` (its fragment ignored) of `origin`, at once and
    /// without taking it: `nil` when nothing was kept or the entry is gone (see ``take(_:page:withCookies:origin:)``).
    /// ``PrefetchCopy/refreshing`` says whether ``fresh(_:page:withCookies:origin:)`` will bring a newer one.
    public func kept(_ key: String, page: String, withCookies: Bool? = nil, origin: BridgeOrigin?) -> PrefetchCopy? {
        guard let origin else { return nil }
        let now = clock(), page = Self.withoutFragment(page)
        return entries.withLock { entries -> PrefetchCopy? in
            guard let entry = entries.first(where: {
                $0.origin == origin && $0.page == page && $0.key == key && $0.expires > now && (withCookies == nil || $0.withCookies == withCookies)
            }), let kept = entry.kept else { return nil }
            return copy(Arrival(response: kept.response, received: kept.received), stale: kept.stale, refreshing: entry.network != nil)
        }
    }

    /// Takes the network's response for `key` (as ``take(_:page:withCookies:origin:)`` does),
    /// waiting for it, with its age: `nil` when no request was made (the kept response was fresh)
    /// or there is no entry.
    /// - Throws: the request's error when it failed (what was kept stays kept).
    public func fresh(_ key: String, page: String, withCookies: Bool? = nil, origin: BridgeOrigin?) async throws -> PrefetchCopy? {
        guard let entry = remove(key, page: page, withCookies: withCookies, origin: origin) else { return nil }
        guard let network = entry.network else { return nil }
        return copy(try await network.value.get(), refreshing: true)
    }

    private func remove(_ key: String, page: String, withCookies: Bool?, origin: BridgeOrigin?) -> Entry? {
        guard let origin else { return nil }
        let now = clock(), page = Self.withoutFragment(page)
        return entries.withLock { entries -> Entry? in
            entries.removeAll { $0.expires <= now }
            guard let index = entries.firstIndex(where: {
                $0.origin == origin && $0.page == page && $0.key == key && (withCookies == nil || $0.withCookies == withCookies)
            }) else { return nil }
            return entries.remove(at: index)
        }
    }

    /// The responses started for `page` (its fragment ignored) of `origin` and not taken, each
    /// still there to take: what ``HybridWebView`` pushes into the page's document once it exists.
    /// `kept` is the stale kept response (with its age at this moment) the page may render
    /// while `response` — the network's — is on its way.
    func untaken(page: String, origin: BridgeOrigin?)
        -> [(key: String, withCookies: Bool, kept: PrefetchCopy?, response: Task<Arrival?, Never>)] {
        guard let origin else { return [] }
        let now = clock(), page = Self.withoutFragment(page)
        return entries.withLock { entries in
            entries.filter { $0.origin == origin && $0.page == page && $0.expires > now }.map { entry in
                let kept = entry.kept.flatMap { kept in
                    entry.network == nil ? nil : copy(Arrival(response: kept.response, received: kept.received), stale: kept.stale,
                                                      refreshing: true)
                }
                return (entry.key, entry.withCookies, kept, entry.pushed)
            }
        }
    }

    /// A response taken out of the prefetcher to be pushed into a document (``claimForPush(_:page:origin:)``).
    struct PushClaim: Sendable {
        fileprivate let entry: Entry
        /// Whether it was made with the app's cookies.
        var withCookies: Bool { entry.withCookies }
    }

    /// Takes the response for `key` out now, synchronously, when nobody took it yet: call it on the
    /// main actor in the same turn that sends the response into the document, so a bridge `take`
    /// that finds nothing is answered only after the document has it. `nil` when it is gone.
    func claimForPush(_ key: String, page: String, origin: BridgeOrigin?) -> PushClaim? {
        guard let origin else { return nil }
        let now = clock(), page = Self.withoutFragment(page)
        return entries.withLock { entries -> PushClaim? in
            guard let index = entries.firstIndex(where: {
                $0.origin == origin && $0.page == page && $0.key == key && $0.expires > now
            }) else { return nil }
            return PushClaim(entry: entries.remove(at: index))
        }
    }

    /// Puts back, as it was, a response the document did not receive.
    func giveBack(_ claim: PushClaim) {
        entries.withLock { $0.append(claim.entry) }
    }

    private static func withoutFragment(_ url: String) -> String {
        url.firstIndex(of: "#").map { String(url[..<$0]) } ?? url
    }

    /// Discards every response not taken yet (the app closed the page).
    public func discardAll() {
        entries.withLock { $0.removeAll() }
    }

    /// Responses started and not yet taken or expired.
    public var pending: Int {
        let now = clock()
        return entries.withLock { entries in entries.filter { $0.expires > now }.count }
    }

    /// The page script: `hybrid.prefetched` answers by key; a page `fetch` of a URL one of the
    /// rules makes for this page is answered from the prefetched response when there is one.
    /// Add it with the bridge's runtime (``PrefetchModule`` serves it).
    public var userScript: UserScript {
        let templates: JSONValue = .array(rules.map {
            ["key": .string($0.key), "url": .string($0.url), "withCookies": .bool($0.withCookies)]
        })
        return UserScript(source: "window.__hybridkitPrefetch = \(templates.jsonText);\n" + PrefetchScript.runtime,
                          injectionTime: .documentStart, frames: .mainFrameOnly, world: .page)
    }
}

extension CharacterSet {
    /// What a query value keeps unescaped: exactly what JavaScript's `encodeURIComponent` keeps,
    /// so the page script expands a template to the same URL.
    static let prefetchValue = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")
}

/// `hybrid-prefetch.js` as shipped.
enum PrefetchScript {
    static let runtime = ScriptResource.source("hybrid-prefetch", in: .module)
}
