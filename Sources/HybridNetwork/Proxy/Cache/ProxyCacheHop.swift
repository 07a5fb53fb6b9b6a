import Foundation
import HybridBase

/// The cache's part in one hop of a proxied request: asked before the hop is sent
/// (``ProxyCache/prepare(method:url:headers:mode:)``), told what came back (``finish(status:headers:body:)``).
///
/// Values only — a URL, header fields, a status, body bytes — so it does not care which transport
/// carries the hop. ``RequestProxy`` adds ``addedHeaders`` to the hop, skips the network on
/// ``ProxyCache/Hop/Plan/serve``, keeps a streamed body's bytes in ``tee`` while they go to the
/// page, and hands the response to ``finish(status:headers:body:)``.
extension ProxyCache {
    /// One hop's cache work.
    struct Hop: Sendable {
        /// What to do before the network.
        enum Plan: Sendable {
            /// Answer with this stored response; send nothing.
            case serve(HTTPCacheEntry)
            /// Send the hop (with ``addedHeaders``).
            case send
            /// `only-if-cached` and nothing stored: fail with `not_cached`, send nothing.
            case fail
        }

        /// A response as the page will see it (a stored one, or one that just arrived).
        struct Response: Sendable {
            /// Its status.
            var status: Int
            /// Its fields.
            var headers: [HTTPCacheEntry.Field]
            /// Its body (for a streamed response, what the page already has: nothing).
            var body: Data
            /// Whether the body was not carried to the page yet (a stored one: the reply carries it whole).
            var fromCache: Bool
            /// What the cache did.
            var outcome: Outcome?
        }

        let cache: ProxyCache?
        let method: String
        let url: String
        let headers: [HTTPCacheEntry.Field]
        let mode: HTTPCachePolicy.Mode
        let identity: String
        let stored: HTTPCacheEntry?
        /// What to do now.
        let plan: Plan
        /// Headers the hop gets from the cache: fetch's mode headers, or a revalidation's conditions.
        let addedHeaders: [HTTPCacheEntry.Field]
        /// Whether the hop is a revalidation of ``stored`` (a 304 then answers with it).
        let revalidating: Bool
        let requestTime = Date()
        /// A streamed body's bytes, kept while they go to the page, up to the entry bound.
        let tee: Tee

        /// Whether a response that arrives should be kept while it streams (it may be stored).
        func keeps(status: Int, headers fields: [HTTPCacheEntry.Field]) -> Bool {
            guard cache != nil, mode != .noStore else { return false }
            return HTTPCachePolicy.isStorable(method: method, requestHeaders: headers, status: status, responseHeaders: fields)
        }

        /// Takes the hop's response: a 304 to a revalidation becomes the stored response with its
        /// headers updated; a storable one is stored; an unsafe method's success invalidates the URL.
        /// - Parameter body: The collected body; for a streamed one, empty (``tee`` has it).
        func finish(status: Int, headers fields: [HTTPCacheEntry.Field], body: Data) -> Response {
            guard let cache else { return Response(status: status, headers: fields, body: body, fromCache: false, outcome: nil) }
            guard method == "GET" else {
                if method != "HEAD", (200..<400).contains(status) { cache.invalidate(url: url) }
                return Response(status: status, headers: fields, body: body, fromCache: false, outcome: nil)
            }
            let now = Date()
            if status == 304, revalidating, let stored {
                let updated = HTTPCachePolicy.updated(stored, with: fields, requestTime: requestTime, responseTime: now)
                if mode != .noStore { cache.store(updated) }
                return Response(status: updated.status, headers: updated.headers, body: updated.body, fromCache: true, outcome: .revalidated)
            }
            if keeps(status: status, headers: fields), let whole = tee.used ? tee.bytes : body {
                let varying = Dictionary(HTTPCacheEntry.varyNames(fields).map { ($0, HTTPCacheEntry.normalized(headers, $0)) }) { first, _ in first }
                cache.store(HTTPCacheEntry(url: url, identity: identity, varying: varying, status: status, headers: fields,
                                           body: whole, requestTime: requestTime, responseTime: now))
            }
            return Response(status: status, headers: fields, body: body, fromCache: false, outcome: .miss)
        }
    }

    /// A streamed body's bytes, kept up to a bound (past it, nothing is kept and nothing stored).
    final class Tee: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        private var over = false
        private var started = false
        private let limit: Int

        init(limit: Int) { self.limit = limit }

        /// Keeps `chunk`.
        func append(_ chunk: Data) {
            lock.withLock {
                started = true
                guard !over else { return }
                if data.count + chunk.count > limit { over = true; data = Data() } else { data.append(chunk) }
            }
        }

        /// Whether the body streamed through the tee.
        var used: Bool { lock.withLock { started } }
        /// The whole body, when it streamed and stayed within the bound.
        var bytes: Data? { lock.withLock { started && !over ? data : nil } }
    }

    /// The cache's plan for one hop, with `headers` as the hop will send them (its `Cookie`
    /// and `Authorization` decide the identity) and the page's fetch `cache` mode.
    func prepare(method: String, url: String, headers: [HTTPCacheEntry.Field], mode text: String?, heldOnly: Bool = false) -> Hop {
        var mode = HTTPCachePolicy.effectiveMode(HTTPCachePolicy.Mode(fetch: text), requestHeaders: headers)
        let identity = Self.identity(headers)
        let tee = Tee(limit: min(configuration.maxEntryBytes, configuration.maxDiskBytes / 4))
        guard configuration.isEnabled, method == "GET" else {
            if method != "GET" { mode = .noStore }
            return Hop(cache: configuration.isEnabled ? self : nil, method: method, url: url, headers: headers, mode: mode,
                       identity: identity, stored: nil, plan: .send, addedHeaders: [], revalidating: false, tee: tee)
        }
        var stored = mode == .noStore || mode == .reload ? nil : entry(url: url, identity: identity, heldOnly: heldOnly)
        if let entry = stored, !entry.matches(varying: headers) { stored = nil }
        let added = HTTPCachePolicy.addedRequestHeaders(mode, requestHeaders: headers)
        let plan: Hop.Plan
        var conditions: [HTTPCacheEntry.Field] = []
        switch HTTPCachePolicy.decide(mode: mode, requestHeaders: headers, entry: stored, now: Date()) {
        case .serve: plan = .serve(stored!)
        case .fail: plan = .fail
        case .network: plan = .send
        case .revalidate(let fields):
            plan = .send
            conditions = fields
        }
        return Hop(cache: self, method: method, url: url, headers: headers, mode: mode, identity: identity, stored: stored,
                   plan: plan, addedHeaders: added + conditions, revalidating: !conditions.isEmpty, tee: tee)
    }
}
