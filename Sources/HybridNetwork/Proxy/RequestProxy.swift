import Foundation
import HybridBase
import HybridBridge
import HybridEngine
import HybridHTTP

/// Performs page requests natively (libcurl on Linux, `URLSession` on Apple platforms:
/// ``ProxyTransport``) with the app's ``CookieJar``.
///
/// Why: a page served from a custom scheme (an offline package) cannot send cookies or bodies
/// the server would accept, and the engine's network process never sees the app's jar or
/// tokens. The page script (`hybrid-proxy.js`) hands such requests over the bridge to
/// ``ProxyModule``, which calls ``perform(_:origin:progress:)``.
///
/// Redirects are followed here, hop by hop: each hop's `Set-Cookie` goes into the jar and the
/// next hop gets the next host's cookies; 301/302 after POST and 303 become GET (dropping the
/// body and its headers), 307/308 keep method and body, `Authorization` never crosses to another
/// origin, and more than ``ProxyPolicy/maxRedirects`` hops fail with `too_many_redirects`.
/// Cross-origin requests get the engine's CORS protocol (``ProxyCORS``): `Origin`, preflights,
/// the `Access-Control-Allow-*` checks, credentials modes and header exposure, except to the
/// policy's ``ProxyPolicy/trustedHosts``.
public final class RequestProxy: Sendable {
    /// Sees every proxied request once it is over (``ProxyRecord``): on a background thread, or on
    /// the main actor for a GET answered from the cache's memory (``ProxyModule``); keep it quick.
    public typealias Observer = @Sendable (ProxyRecord) -> Void

    /// What is proxied, limits, extra headers, trusted hosts.
    public let policy: ProxyPolicy
    /// The jar requests read and responses write; `nil` sends no cookies.
    public let jar: CookieJar?
    private let observer: Observer?
    #if os(Linux)
    private let transport: any ProxyTransport = ProxyCurlTransfer()
    #else
    private let transport: any ProxyTransport = ProxySessionTransfer()
    #endif
    private let preflights = ProxyPreflightCache()
    /// The HTTP cache proxied GETs use (``ProxyPolicy/cache``); `nil` when it is off.
    public let cache: ProxyCache?
    /// Streamed request bodies being sent, which the page's `proxy.slice` answers feed.
    let bodies = ProxyBodyRegistry()

    /// What a streamed request reports as it runs (``ProxyModule`` relays it to the page).
    struct Events: Sendable {
        /// Bytes sent.
        var upload: @Sendable (ProxyProgress) -> Void
        /// The final response's head (its body empty), once, before any ``data``.
        var head: @Sendable (ProxyResponse) -> Void
        /// Body bytes as they arrive; throwing stops the transfer with that error.
        var data: @Sendable (Data) throws -> Void
    }

    /// The rules of the document a request comes from, checked at every hop before anything of
    /// that hop is sent: its Content Security Policies (``ContentSecurityPolicy``, `connect-src`).
    struct PageRules: Sendable {
        /// The document's policies, enforced and report-only.
        var policies: [ContentSecurityPolicy]
        /// Each hop's verdict when it has violations, before the request fails for an enforced one.
        var violated: @Sendable (ContentSecurityPolicy.Verdict) -> Void
    }

    /// A proxy.
    /// - Parameters:
    ///   - policy: What is proxied, limits, extra headers.
    ///   - jar: The app's cookie jar (used when ``ProxyPolicy/usesCookieJar``).
    ///   - observer: The app's hook for logging; called once per request, success or failure.
    public init(policy: ProxyPolicy, jar: CookieJar?, observer: Observer? = nil) {
        self.policy = policy
        self.jar = jar
        self.observer = observer
        cache = policy.cache.isEnabled ? ProxyCache.opening(policy.cache) : nil
    }

    deinit {
        bodies.cancelAll()
        transport.invalidate()
    }

    /// Performs `request`, following redirects.
    /// - Parameters:
    ///   - origin: The page's origin (``BridgeCallContext/origin``): cross-origin requests are
    ///     CORS-checked against it. `nil` (the app's own code) checks nothing.
    ///   - progress: Called with upload progress, and for a ``ProxyRequest/stream`` request with
    ///     the response head and body chunks (the returned response then has no body), from any thread.
    /// - Returns: The final response.
    /// - Throws: `HybridError.network` — `proxy_denied`, `cors_denied`, `payload_too_large`,
    ///   `too_many_redirects`, `timeout`, `network_error` — or `CancellationError`.
    public func perform(_ request: ProxyRequest, origin: BridgeOrigin? = nil,
                        progress: (@Sendable (ProxyProgress) -> Void)? = nil) async throws -> ProxyResponse {
        var events: Events?
        if request.stream == true, let progress {
            let received = ByteCount()
            events = Events(upload: progress, head: { progress(ProxyProgress(phase: "head", loaded: 0, total: -1, head: $0)) },
                            data: { data in
                                let loaded = received.add(data.count)
                                progress(ProxyProgress(phase: "data", loaded: Int64(loaded), total: -1, chunk: BridgeBytes(data)))
                            })
        }
        return try await perform(request, origin: origin, progress: progress, events: events, body: nil)
    }

    /// Performs `request`; with `events`, the final response's head and body are reported as
    /// they arrive and the returned response carries no body. `body` is the page's streamed body
    /// when the request declares one (``ProxyRequest/bodySize``).
    func perform(_ request: ProxyRequest, origin: BridgeOrigin?, progress: (@Sendable (ProxyProgress) -> Void)?,
                 events: Events?, body source: ProxyBodySource?, rules: PageRules? = nil) async throws -> ProxyResponse {
        let started = Date()
        var record = Self.record(of: request)
        let streamed = ByteCount()
        // With integrity metadata the body is checked whole before the page sees any of it, so the
        // head is not reported early and the body does not stream (the engine buffers it too).
        var relay = (request.integrity ?? "").isEmpty ? events : nil
        relay?.data = { [events] data in
            streamed.add(data.count)
            try events?.data(data)
        }
        do {
            let response = try await follow(request, origin: origin, record: &record,
                                            upload: events?.upload ?? progress, events: relay, source: source, rules: rules)
            record.responseBodyBytes += streamed.value
            record.duration = Date().timeIntervalSince(started)
            observer?(record)
            return response
        } catch {
            record.failure = (error as? HybridError)?.code ?? (error is CancellationError ? "cancelled" : "internal")
            record.duration = Date().timeIntervalSince(started)
            observer?(record)
            throw error
        }
    }

    /// A request on its way through its hops: what one hop hands the next.
    private struct Journey {
        let original: ProxyRequest
        let origin: BridgeOrigin?
        let rules: PageRules?
        var url: URL
        var method: String
        var headers: [(name: String, value: String)]
        var body: Data?
        var streamed: ProxyBodySource?
        let timeout: Double
        let deadline: Date
        let mode: String
        var cors: ProxyCORS
        var crossSite = false
    }

    /// One hop, ready to go: its CORS plan, the request, and what the cache says of it.
    private struct PlannedHop {
        let url: URL
        let cors: ProxyCORS.Hop
        let referrer: String?
        var request: ProxyHop
        let body: ProxyBodySource?
        let cache: ProxyCache.Hop?
    }

    private func follow(_ original: ProxyRequest, origin: BridgeOrigin?, record: inout ProxyRecord,
                        upload: (@Sendable (ProxyProgress) -> Void)?, events: Events?,
                        source: ProxyBodySource?, rules: PageRules?) async throws -> ProxyResponse {
        var journey = try begin(original, origin: origin, record: &record, source: source, rules: rules)
        while true {
            var hop = try plan(&journey, record: &record)
            if hop.cors.preflight {
                try await preflight(url: hop.url, method: journey.method, headers: journey.headers, cors: journey.cors,
                                    referrer: hop.referrer, userAgent: original.userAgent, forced: original.preflight ?? false,
                                    timeout: journey.deadline.timeIntervalSinceNow)
            }
            var setCookies: [String] = []
            let (response, data): (HTTPHead, Data)
            if let stored = try answer(hop, record: &record) {
                (response, data) = stored
            } else {
                let cacheHop = hop.cache
                for field in cacheHop?.addedHeaders ?? [] {
                    hop.request.headers.removeAll { $0.name.equalsIgnoringASCIICase(field.name) }
                    hop.request.headers.append((field.name, field.value))
                }
                let decide = events.map { decision($0, hop: hop, journey: journey, hops: record.hops.count) }
                var (sent, body) = try await send(hop.request, body: hop.body, limit: policy.maxBodyBytes, progress: upload,
                                                  decide: cacheHop.map { Self.caching(decide, hop: $0) } ?? decide)
                setCookies = ProxyHeaders.setCookieValues(sent)
                if let cacheHop {
                    let kept = cacheHop.finish(status: sent.status, headers: Self.fields(sent.fields), body: body)
                    record.cache = kept.outcome?.rawValue
                    if kept.fromCache { (sent, body) = (Self.head(url: hop.url, status: kept.status, fields: kept.headers), kept.body) }
                }
                (response, data) = (sent, body)
            }
            if let final = try land(&journey, hop: hop, response: response, data: data, setCookies: setCookies, record: &record) {
                return final
            }
        }
    }

    /// A GET the cache answers from memory, with nothing sent and nothing to wait for: the same
    /// checks and response as ``perform(_:origin:progress:)`` gives, synchronously (a bridge call
    /// answered this way needs no task switch). `nil` for anything else — a request to send, a
    /// preflight to make, a stored redirect, a failure, report-only policies to report — which the
    /// caller then performs as usual, from the start.
    /// - Parameter policies: The document's policies (``PageRules``); enforced ones report only when
    ///   they refuse, and a refusal is left to the full path, which reports it.
    func answerFromMemory(_ request: ProxyRequest, origin: BridgeOrigin?, policies: [ContentSecurityPolicy]) -> ProxyResponse? {
        guard let cache, cache.holdsEntries, Self.normalize(method: request.method) == "GET", request.bodySize == nil,
              (request.body ?? "").isEmpty, policies.allSatisfy({ $0.disposition == .enforce }) else { return nil }
        let started = Date()
        var record = Self.record(of: request)
        let rules = PageRules(policies: policies) { _ in }
        guard var journey = try? begin(request, origin: origin, record: &record, source: nil, rules: rules),
              let hop = try? plan(&journey, record: &record, heldOnly: true), !hop.cors.preflight,
              case .serve? = hop.cache?.plan, let stored = try? answer(hop, record: &record),
              let response = try? land(&journey, hop: hop, response: stored.0, data: stored.1, setCookies: [], record: &record)
        else { return nil }
        record.duration = Date().timeIntervalSince(started)
        observer?(record)
        return response
    }

    /// What the app's hook sees of `request` before it goes anywhere.
    private static func record(of request: ProxyRequest) -> ProxyRecord {
        ProxyRecord(method: request.method.uppercased(), url: URL(string: request.url) ?? URL(fileURLWithPath: "/"),
                    requestHeaders: request.headers.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil },
                    requestBodyBytes: 0, hops: [], status: nil, responseHeaders: [], responseBodyBytes: 0,
                    failure: nil, duration: 0)
    }

    /// The checks of the request as the page made it (URL, body, size) and its first hop's state.
    private func begin(_ original: ProxyRequest, origin: BridgeOrigin?, record: inout ProxyRecord,
                       source: ProxyBodySource?, rules: PageRules?) throws -> Journey {
        guard let url = URL(string: original.url), policy.proxies(url) else {
            throw HybridError.network(.proxyDenied(String(original.url.prefix(200))))
        }
        var body: Data?
        var streamed: ProxyBodySource?
        if let size = original.bodySize {
            // The declared size is checked before the page is asked for a byte; every slice is
            // then checked against it (ProxyBodySource), so the limit holds while it streams.
            guard size >= 0 else { throw HybridError.network(.invalidBody("a negative size")) }
            guard size <= Int64(policy.maxBodyBytes) else {
                throw HybridError.network(.payloadTooLarge(size: Int(clamping: size), limit: policy.maxBodyBytes))
            }
            if size > 0 {
                guard let source, source.size == size else {
                    throw HybridError.network(.invalidBody("a streamed body is sent only for the page that declared it (ProxyModule)"))
                }
                streamed = source
            }
            record.requestBodyBytes = Int(clamping: size)
        }
        if let text = original.body, !text.isEmpty {
            // A base64 text of n characters decodes to about 3n/4 bytes: refuse before decoding.
            guard text.utf8.count / 4 * 3 <= policy.maxBodyBytes + 2 else {
                throw HybridError.network(.payloadTooLarge(size: text.utf8.count / 4 * 3, limit: policy.maxBodyBytes))
            }
            guard let data = Data(base64Encoded: text) else { throw HybridError.network(.internalError("request body is not base64")) }
            body = data
        }
        if streamed == nil { record.requestBodyBytes = body?.count ?? record.requestBodyBytes }
        let headers = original.headers.compactMap { $0.count == 2 && !ProxyHeaders.isForbidden($0[0]) ? (name: $0[0], value: $0[1]) : nil }
        let timeout = (original.timeout ?? 0) > 0 ? original.timeout! / 1000 : policy.defaultTimeout
        streamed?.timeoutMilliseconds = Int(timeout * 1000)
        var cors = ProxyCORS(origin: origin, mode: original.mode, credentials: original.credentials, trusted: policy.trustedHosts)
        cors.originFromFirstHop = original.quirks?.contains("origin-from-first-hop") ?? false
        return Journey(original: original, origin: origin, rules: rules, url: url, method: Self.normalize(method: original.method),
                       headers: headers, body: body, streamed: streamed, timeout: timeout,
                       deadline: Date().addingTimeInterval(timeout), mode: original.redirect ?? "follow", cors: cors)
    }

    /// The next hop: checked against the page's rules, planned for CORS, built, and asked of the
    /// cache (only of what it holds in memory, with `heldOnly`).
    private func plan(_ journey: inout Journey, record: inout ProxyRecord, heldOnly: Bool = false) throws -> PlannedHop {
        let url = journey.url, origin = journey.origin, original = journey.original
        record.hops.append(url)
        try check(url, origin: origin, rules: journey.rules, initialURL: record.hops[0])
        guard journey.deadline.timeIntervalSinceNow > 0 else {
            throw HybridError.network(.timedOut(milliseconds: Int(journey.timeout * 1000)))
        }
        let preflights = self.preflights
        let cors = try journey.cors.plan(url: url, method: journey.method, headers: journey.headers, forcePreflight: original.preflight ?? false,
                                         redirect: journey.mode) { [cors = journey.cors] method, names in
            preflights.allows(origin: cors.serializedOrigin, url: url, credentials: cors.credentials == .include,
                              method: method, names: names)
        }
        let referrer = ProxyReferrer.header(source: original.referrer, policy: original.referrerPolicy, target: url)
        // What the engine adds of its own: its User-Agent, Accept-Language, Accept-Encoding (the
        // transport decodes every one of them), Fetch Metadata.
        var engineHeaders = original.userAgent.map { [("User-Agent", $0)] } ?? []
        let encodings = original.quirks?.contains("accept-encoding-br-zstd") == true ? "gzip, deflate, br, zstd" : "gzip, deflate"
        engineHeaders.append(("Accept-Encoding", encodings))
        if let languages = original.acceptLanguage, ProxyHeaders.isLanguageList(languages) {
            engineHeaders.append(("Accept-Language", languages))
        }
        if let origin, ProxyFetchMetadata.site(url: url, origin: origin, crossSite: journey.crossSite) == "cross-site" { journey.crossSite = true }
        engineHeaders += ProxyFetchMetadata.headers(url: url, origin: origin, mode: original.mode, crossSite: journey.crossSite)
        let request = hop(url: url, method: journey.method, headers: journey.headers, body: journey.body, deadline: journey.deadline,
                          timeout: journey.timeout, cookies: cors.cookies && policy.usesCookieJar, origin: cors.origin,
                          referrer: referrer, engineHeaders: engineHeaders)
        // The HTTP cache, before the network: it may answer the hop itself, or add its headers
        // (fetch's mode headers, a revalidation's conditions); after: it stores or revalidates.
        let cacheHop = cache?.prepare(method: journey.method, url: Self.cacheKey(url), headers: Self.fields(request.headers),
                                      mode: original.cache, heldOnly: heldOnly)
        return PlannedHop(url: url, cors: cors, referrer: referrer, request: request,
                          body: journey.method == "GET" || journey.method == "HEAD" ? nil : journey.streamed, cache: cacheHop)
    }

    /// The hop's answer when the cache gives it without the network; `nil` when it must be sent.
    /// - Throws: `not_cached` for `only-if-cached` with nothing stored.
    private func answer(_ hop: PlannedHop, record: inout ProxyRecord) throws -> (HTTPHead, Data)? {
        switch hop.cache?.plan {
        case .fail?:
            record.cache = ProxyCache.Outcome.miss.rawValue
            throw HybridError.network(.notCached(ContentSecurityPolicy.reportable(hop.url)))
        case .serve(let entry)?:
            record.cache = ProxyCache.Outcome.hit.rawValue
            return (Self.head(url: hop.url, status: entry.status, fields: entry.headers), entry.body)
        case .send?, nil:
            return nil
        }
    }

    /// A streamed request's decision on the final response's head as it arrives: the head goes to
    /// the page at once, the body as it comes; a redirect or an opaque response is collected.
    private func decision(_ events: Events, hop: PlannedHop, journey: Journey, hops: Int) -> ProxyDecision {
        let (url, mode, cors, checked) = (hop.url, journey.mode, journey.cors, hop.cors.checked)
        return { response in
            if Self.isRedirect(response, mode: mode) { return .collect }
            do {
                let head = try Self.head(response, url: url, hops: hops, cors: cors, checked: checked, mode: mode)
                events.head(head)
                return head.type == "opaque" || head.type == "opaqueredirect" ? .collect : .stream(events.data)
            } catch let error as HybridError {
                if case .network(let reason) = error { return .fail(reason) }
                return .fail(.internalError("\(error)"))
            } catch {
                return .fail(.internalError("\(error)"))
            }
        }
    }

    /// Takes a hop's response: its cookies into the jar; a redirect sets up the next hop (`nil`);
    /// a final response is checked (CORS, integrity) and becomes what the page gets.
    private func land(_ journey: inout Journey, hop: PlannedHop, response: HTTPHead, data: Data, setCookies: [String],
                      record: inout ProxyRecord) throws -> ProxyResponse? {
        let url = journey.url, mode = journey.mode
        if hop.cors.cookies && policy.usesCookieJar, let jar, !setCookies.isEmpty { _ = jar.setCookies(fromHeaders: setCookies, for: url) }
        if Self.isRedirect(response, mode: mode), let next = Self.location(response, url: url) {
            if hop.cors.checked, let reason = journey.cors.check(status: response.status, headers: ProxyHeaders.pairs(response)) {
                throw HybridError.network(.corsDenied(reason))
            }
            guard mode != "error" else { throw HybridError.network(.requestFailed("redirected to \(next.absoluteString) with redirect: 'error'")) }
            guard record.hops.count <= policy.maxRedirects else { throw HybridError.network(.tooManyRedirects(limit: policy.maxRedirects)) }
            guard let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                throw HybridError.network(.proxyDenied("redirect to \(next.absoluteString.prefix(200))"))
            }
            try journey.cors.redirect(from: url, to: next)
            let status = response.status, method = journey.method
            if (status == 301 || status == 302) && method == "POST" || status == 303 && method != "GET" && method != "HEAD" {
                journey.method = "GET"
                journey.body = nil
                journey.streamed = nil
                journey.headers.removeAll { ProxyHeaders.requestBodyHeaders.contains($0.name.lowercased()) }
            }
            if BridgeOrigin(url: next) != BridgeOrigin(url: url) {
                journey.headers.removeAll { $0.name.lowercased() == "authorization" }
            }
            journey.url = next
            return nil
        }
        var head = try Self.head(response, url: url, hops: record.hops.count, cors: journey.cors, checked: hop.cors.checked, mode: mode)
        record.status = response.status
        record.responseHeaders = ProxyHeaders.pairs(response).map { ($0[0], $0[1]) }
        record.responseBodyBytes = data.count
        let masked = head.type == "opaque" || head.type == "opaqueredirect"
        if let integrity = journey.original.integrity, !integrity.isEmpty,
           masked || !SubresourceIntegrity.matches(data, metadata: integrity) {
            throw HybridError.network(.integrityMismatch(ContentSecurityPolicy.reportable(url)))
        }
        // A streamed response's head went out already; its body is what was collected (none then).
        head.setBody(masked ? Data() : data)
        return head
    }

    /// What the engine checks before it sends a request, at every hop (the Fetch standard's main
    /// fetch, step 7): mixed content first, then the document's Content Security Policy.
    private func check(_ url: URL, origin: BridgeOrigin?, rules: PageRules?, initialURL: URL) throws {
        if ProxyMixedContent.blocks(url, origin: origin, exceptions: policy.mixedContentExceptions) {
            throw HybridError.network(.mixedContent(ContentSecurityPolicy.reportable(url)))
        }
        guard let rules, !rules.policies.isEmpty else { return }
        let verdict = ContentSecurityPolicy.check(url, directive: .connect, policies: rules.policies, origin: origin,
                                                  redirected: url != initialURL, initialURL: initialURL)
        if !verdict.violations.isEmpty { rules.violated(verdict) }
        if !verdict.allowed, let blocked = verdict.violations.first(where: { $0.disposition == .enforce }) {
            throw HybridError.network(.cspDenied(blocked))
        }
    }

    /// The hop's decision with the cache's part: a 304 answering a revalidation is collected, not
    /// shown (the stored response is, whole); a storable body that streams to the page is also kept.
    private static func caching(_ decide: ProxyDecision?, hop: ProxyCache.Hop) -> ProxyDecision? {
        guard let decide else { return nil }
        return { response in
            if response.status == 304, hop.revalidating { return .collect }
            let disposition = decide(response)
            guard case .stream(let sink) = disposition, hop.keeps(status: response.status, headers: fields(response.fields)) else {
                return disposition
            }
            return .stream { data in
                hop.tee.append(data)
                try sink(data)
            }
        }
    }

    /// The URL the cache keys a hop by: without its fragment.
    private static func cacheKey(_ url: URL) -> String {
        var parts = URLComponents(url: url, resolvingAgainstBaseURL: true)
        parts?.fragment = nil
        return parts?.url?.absoluteString ?? url.absoluteString
    }

    /// Header fields as the cache reads and stores them.
    private static func fields(_ pairs: [(name: String, value: String)]) -> [HTTPCacheEntry.Field] {
        pairs.map { HTTPCacheEntry.Field($0.name, $0.value) }
    }

    /// A stored response as the transport's head, for the code that reads hops.
    private static func head(url: URL, status: Int, fields: [HTTPCacheEntry.Field]) -> HTTPHead {
        HTTPHead(status: status, url: url, fields: fields.map { (name: $0.name, value: $0.value) })
    }

    /// The page's view of a final response, without its body: CORS-checked, typed, its headers
    /// filtered, masked when opaque.
    private static func head(_ response: HTTPHead, url: URL, hops: Int, cors: ProxyCORS, checked: Bool,
                             mode: String) throws -> ProxyResponse {
        let pairs = ProxyHeaders.pairs(response)
        if checked, let reason = cors.check(status: response.status, headers: pairs) {
            throw HybridError.network(.corsDenied(reason))
        }
        var address = URLComponents(url: url, resolvingAgainstBaseURL: true)
        address?.fragment = nil
        let location = address?.url?.absoluteString ?? url.absoluteString
        let manual = mode == "manual" && [301, 302, 303, 307, 308].contains(response.status)
        let type = cors.responseType(manualRedirect: manual)
        switch type {
        case "opaque":
            return ProxyResponse(status: 0, statusText: "", url: "", redirected: false, type: type, headers: [], body: Data())
        case "opaqueredirect":
            return ProxyResponse(status: 0, statusText: "", url: location, redirected: false, type: type, headers: [], body: Data())
        default:
            return ProxyResponse(status: response.status, statusText: ProxyHeaders.reasonPhrase(response.status),
                                 url: location, redirected: hops > 1, type: type, headers: cors.exposed(pairs), body: Data())
        }
    }

    /// The CORS preflight for a hop: an `OPTIONS` request without cookies or the page's headers.
    private func preflight(url: URL, method: String, headers: [(name: String, value: String)], cors: ProxyCORS,
                           referrer: String?, userAgent: String?, forced: Bool, timeout: Double) async throws {
        var fields = [("Accept", "*/*"), ("Access-Control-Request-Method", method)]
        let names = ProxyCORS.unsafeHeaderNames(headers)
        if !names.isEmpty { fields.append(("Access-Control-Request-Headers", names.joined(separator: ","))) }
        fields.append(("Origin", cors.serializedOrigin))
        if let referrer { fields.append(("Referer", referrer)) }
        if let userAgent { fields.append(("User-Agent", userAgent)) }
        let request = ProxyHop(url: url, method: "OPTIONS", headers: fields.map { (name: $0.0, value: $0.1) }, body: .none,
                               deadline: Date().addingTimeInterval(timeout), timeoutMilliseconds: Int(timeout * 1000))
        let (response, _) = try await send(request, body: nil, limit: 1 << 20, progress: nil, decide: nil)
        let allowed = try cors.checkPreflight(status: response.status, headers: ProxyHeaders.pairs(response), method: method,
                                              requestHeaders: headers, forced: forced)
        preflights.store(origin: cors.serializedOrigin, url: url, credentials: cors.credentials == .include, allowed)
    }

    /// Runs one hop, sending it again once on a new connection when the connection broke before
    /// any response (a kept-alive connection the server had closed), as browsers do. A streamed
    /// body is read from the page again from its start for each attempt.
    private func send(_ request: ProxyHop, body: ProxyBodySource?, limit: Int, progress: (@Sendable (ProxyProgress) -> Void)?,
                      decide: ProxyDecision?) async throws -> (HTTPHead, Data) {
        func attempt() async throws -> (HTTPHead, Data) {
            guard let body else {
                return try await transport.run(request, limit: limit, progress: progress, decide: decide, stop: nil)
            }
            var request = request
            request.body = .stream(body.makeStream(deadline: request.deadline), size: body.size)
            do {
                // A read waiting for the page is woken before the transfer is cancelled or failed.
                let result = try await transport.run(request, limit: limit, progress: progress, decide: decide) { body.cancel() }
                if let failure = body.failure { throw HybridError.network(failure) }
                return result
            } catch {
                if let failure = body.failure { throw HybridError.network(failure) }
                // Cancelled while a read waited: the stream's error can beat the task's cancellation.
                if Task.isCancelled { throw CancellationError() }
                throw error
            }
        }
        do {
            return try await attempt()
        } catch is ProxyConnectionLost {
            do {
                return try await attempt()
            } catch let lost as ProxyConnectionLost {
                throw HybridError.network(.requestFailed(lost.message))
            }
        }
    }

    private static func isRedirect(_ response: HTTPHead, mode: String) -> Bool {
        [301, 302, 303, 307, 308].contains(response.status) && mode != "manual" && response.value("Location") != nil
    }

    /// The redirect's target; a `Location` without a fragment keeps the request's.
    private static func location(_ response: HTTPHead, url: URL) -> URL? {
        guard let location = response.value("Location"),
              var next = URL(string: location, relativeTo: url)?.absoluteURL else { return nil }
        if next.fragment == nil, let fragment = url.fragment, var parts = URLComponents(url: next, resolvingAgainstBaseURL: true) {
            parts.fragment = fragment
            next = parts.url ?? next
        }
        return next
    }

    /// A byte count shared with transfer callbacks.
    private final class ByteCount: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        /// Adds `bytes`; returns the new total.
        @discardableResult func add(_ bytes: Int) -> Int { lock.withLock { count += bytes; return count } }
        var value: Int { lock.withLock { count } }
    }

    /// The Fetch standard's method normalization: the standard methods upper-cased, others as written.
    static func normalize(method: String) -> String {
        let upper = method.uppercased()
        return ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"].contains(upper) ? upper : method
    }

    /// The request for one hop: the page's headers, the policy's extra headers, the jar's cookies,
    /// the engine's `Origin` and `Referer`. The body is the page's bytes, none for GET and HEAD;
    /// a POST or PUT without one sends an empty body (`Content-Length: 0`, as the engines do). A
    /// streamed body is set per attempt (``send(_:body:limit:progress:decide:)``).
    private func hop(url: URL, method: String, headers: [(name: String, value: String)], body: Data?, deadline: Date,
                     timeout: Double, cookies: Bool, origin: String?, referrer: String?,
                     engineHeaders: [(String, String)]) -> ProxyHop {
        // The page's fields of one name go as one line, their values joined (as the engines send them).
        var fields: [(name: String, value: String)] = []
        var present = Set<String>()
        for (name, value) in headers {
            if let index = fields.firstIndex(where: { $0.name.equalsIgnoringASCIICase(name) }) {
                fields[index].value += ", " + value
            } else {
                fields.append((name, value))
                present.insert(name.lowercased())
            }
        }
        for (name, value) in policy.extraHeaders(for: url) where !present.contains(name.lowercased()) {
            present.insert(name.lowercased())
            fields.append((name, value))
        }
        for (name, value) in engineHeaders where !present.contains(name.lowercased()) {
            present.insert(name.lowercased())
            fields.append((name, value))
        }
        if cookies, let cookie = jar?.cookieHeader(for: url) { fields.append(("Cookie", cookie)) }
        if let origin { fields.append(("Origin", origin)) }
        if let referrer { fields.append(("Referer", referrer)) }
        var payload = ProxyHop.Body.none
        if method != "GET" && method != "HEAD" {
            if let body { payload = .bytes(body) } else if method == "POST" || method == "PUT" { payload = .bytes(Data()) }
        }
        return ProxyHop(url: url, method: method, headers: fields, body: payload, deadline: deadline,
                        timeoutMilliseconds: Int(timeout * 1000))
    }
}
