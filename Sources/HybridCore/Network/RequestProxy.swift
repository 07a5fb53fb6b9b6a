import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Performs page requests natively (`URLSession`) with the app's ``CookieJar``.
///
/// Why: a page served from a custom scheme (an offline package) cannot send cookies or bodies
/// the server would accept, and the engine's network process never sees the app's jar or
/// tokens. The page script (`hybrid-proxy.js`) hands such requests over the bridge to
/// ``ProxyModule``, which calls ``perform(_:progress:)``.
///
/// Redirects are followed here, hop by hop: each hop's `Set-Cookie` goes into the jar and the
/// next hop gets the next host's cookies; 301/302 after POST and 303 become GET, 307/308 keep
/// method and body, `Authorization` never crosses to another origin, and more than
/// ``ProxyPolicy/maxRedirects`` hops fail with `too_many_redirects`.
public final class RequestProxy: Sendable {
    /// Sees every proxied request once it is over (``ProxyRecord``), on a background thread.
    public typealias Observer = @Sendable (ProxyRecord) -> Void

    public let policy: ProxyPolicy
    /// The jar requests read and responses write; `nil` sends no cookies.
    public let jar: CookieJar?
    private let observer: Observer?
    private let transfer = ProxyTransfer()

    /// A proxy.
    /// - Parameters:
    ///   - policy: What is proxied, limits, extra headers.
    ///   - jar: The app's cookie jar (used when ``ProxyPolicy/usesCookieJar``).
    ///   - observer: The app's hook for logging; called once per request, success or failure.
    public init(policy: ProxyPolicy, jar: CookieJar?, observer: Observer? = nil) {
        self.policy = policy
        self.jar = jar
        self.observer = observer
    }

    deinit { transfer.invalidate() }

    /// Performs `request`, following redirects.
    /// - Parameter progress: Called with upload and download progress, from any thread.
    /// - Returns: The final response, its body as base64.
    /// - Throws: `HybridError.network` — `proxy_denied`, `payload_too_large`,
    ///   `too_many_redirects`, `timeout`, `network_error` — or `CancellationError`.
    public func perform(_ request: ProxyRequest,
                        progress: (@Sendable (ProxyProgress) -> Void)? = nil) async throws -> ProxyResponse {
        let started = Date()
        var record = ProxyRecord(method: request.method.uppercased(), url: URL(string: request.url) ?? URL(fileURLWithPath: "/"),
                                 requestHeaders: request.headers.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil },
                                 requestBodyBytes: 0, hops: [], status: nil, responseHeaders: [], responseBodyBytes: 0,
                                 failure: nil, duration: 0)
        do {
            let response = try await follow(request, record: &record, progress: progress)
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

    private func follow(_ original: ProxyRequest, record: inout ProxyRecord,
                        progress: (@Sendable (ProxyProgress) -> Void)?) async throws -> ProxyResponse {
        guard var url = URL(string: original.url), policy.proxies(url) else {
            throw HybridError.network(.proxyDenied(String(original.url.prefix(200))))
        }
        var body: Data?
        if let text = original.body, !text.isEmpty {
            // A base64 text of n characters decodes to about 3n/4 bytes: refuse before decoding.
            guard text.utf8.count / 4 * 3 <= policy.maxBodyBytes + 2 else {
                throw HybridError.network(.payloadTooLarge(size: text.utf8.count / 4 * 3, limit: policy.maxBodyBytes))
            }
            guard let data = Data(base64Encoded: text) else { throw HybridError.network(.internalError("request body is not base64")) }
            body = data
        }
        record.requestBodyBytes = body?.count ?? 0
        var method = original.method.uppercased()
        var headers = original.headers.compactMap { $0.count == 2 ? (name: $0[0], value: $0[1]) : nil }
        let firstOrigin = BridgeOrigin(url: url)
        let timeout = (original.timeout ?? 0) > 0 ? original.timeout! / 1000 : policy.defaultTimeout
        let deadline = Date().addingTimeInterval(timeout)
        let mode = original.redirect ?? "follow"
        while true {
            record.hops.append(url)
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw HybridError.network(.timedOut(milliseconds: Int(timeout * 1000))) }
            let request = urlRequest(url: url, method: method, headers: headers, body: body, timeout: remaining)
            let (response, data) = try await transfer.run(request, limit: policy.maxBodyBytes, timeout: remaining,
                                                          progress: progress)
            let setCookies = ProxyHeaders.setCookieValues(response)
            if policy.usesCookieJar, let jar, !setCookies.isEmpty { _ = jar.setCookies(fromHeaders: setCookies, for: url) }
            let status = response.statusCode
            if [301, 302, 303, 307, 308].contains(status), mode != "manual",
               let location = ProxyHeaders.value("Location", in: response), let next = URL(string: location, relativeTo: url)?.absoluteURL {
                guard mode != "error" else { throw HybridError.network(.requestFailed("redirected to \(next.absoluteString) with redirect: 'error'")) }
                guard record.hops.count <= policy.maxRedirects else { throw HybridError.network(.tooManyRedirects(limit: policy.maxRedirects)) }
                guard let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                    throw HybridError.network(.proxyDenied("redirect to \(next.absoluteString.prefix(200))"))
                }
                if status == 303 && method != "HEAD" || (status == 301 || status == 302) && method == "POST" {
                    method = "GET"
                    body = nil
                    headers.removeAll { ["content-type", "content-length", "content-encoding"].contains($0.name.lowercased()) }
                }
                if BridgeOrigin(url: next) != firstOrigin {
                    headers.removeAll { $0.name.lowercased() == "authorization" }
                }
                url = next
                continue
            }
            let responseHeaders = ProxyHeaders.pairs(response)
            record.status = status
            record.responseHeaders = responseHeaders.map { ($0[0], $0[1]) }
            record.responseBodyBytes = data.count
            return ProxyResponse(status: status, statusText: ProxyHeaders.reasonPhrase(status),
                                 url: url.absoluteString, redirected: record.hops.count > 1,
                                 headers: responseHeaders, body: data)
        }
    }

    /// The request for one hop: the page's headers, the policy's extra headers, the jar's cookies.
    private func urlRequest(url: URL, method: String, headers: [(name: String, value: String)], body: Data?,
                            timeout: Double) -> URLRequest {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: max(timeout, 0.001))
        request.httpMethod = method
        var present = Set<String>()
        for (name, value) in headers where !ProxyHeaders.forbidden.contains(name.lowercased()) {
            present.insert(name.lowercased())
            request.addValue(value, forHTTPHeaderField: name)
        }
        for (name, value) in policy.extraHeaders(for: url) where !present.contains(name.lowercased()) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        if policy.usesCookieJar, let cookie = jar?.cookieHeader(for: url) {
            request.setValue(cookie, forHTTPHeaderField: "Cookie")
        }
        if let body, method != "GET", method != "HEAD" { request.httpBody = body }
        return request
    }
}
