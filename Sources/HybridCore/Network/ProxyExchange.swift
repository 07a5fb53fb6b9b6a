import Foundation

/// A page request as it crosses the bridge (`hybrid.call('proxy', 'request', …)`).
///
/// Headers are `[name, value]` pairs in the page's order; the body is base64 (binary-safe and
/// the cheapest text encoding the engines decode natively).
public struct ProxyRequest: Codable, Sendable, Hashable {
    public var url: String
    public var method: String
    public var headers: [[String]]
    /// The body as base64; `nil` or empty for none.
    public var body: String?
    /// Milliseconds; `nil` or 0 for the policy's default.
    public var timeout: Double?
    /// `follow` (default), `manual` (the first 3xx is the response) or `error` (a redirect fails).
    public var redirect: String?

    public init(url: String, method: String = "GET", headers: [[String]] = [], body: String? = nil,
                timeout: Double? = nil, redirect: String? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.redirect = redirect
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.count == 2 && $0[0].caseInsensitiveCompare(name) == .orderedSame }.map { $0[1] }
    }
}

/// A proxied response as the page receives it.
public struct ProxyResponse: Codable, Sendable, Hashable {
    public var status: Int
    public var statusText: String
    /// The final URL, after redirects.
    public var url: String
    public var redirected: Bool
    /// `[name, value]` pairs; `Set-Cookie` is left out, as a browser hides it from pages.
    public var headers: [[String]]
    /// The body as base64, empty when it travels as ``text``.
    public var body: String
    /// The body itself when it is UTF-8 text of a textual type (JSON, `text/*`, XML, JavaScript):
    /// most API replies cross the bridge without base64 and the page decodes nothing.
    public var text: String?
    /// The body's length in bytes.
    public var size: Int

    public init(status: Int, statusText: String, url: String, redirected: Bool, headers: [[String]], body: Data) {
        self.status = status
        self.statusText = statusText
        self.url = url
        self.redirected = redirected
        self.headers = headers
        size = body.count
        let type = headers.first { $0.first == "content-type" }?.last
        if ProxyHeaders.isUTF8Text(type), let text = String(data: body, encoding: .utf8) {
            self.text = text
            self.body = ""
        } else {
            self.body = body.base64EncodedString()
        }
    }

    /// The body's bytes, whichever way it travels.
    public var bodyData: Data? {
        if let text { return Data(text.utf8) }
        return Data(base64Encoded: body)
    }
}

/// Progress of a proxied request, reported to the page's XHR `upload` and download events.
public struct ProxyProgress: Codable, Sendable, Hashable {
    /// `upload` or `download`.
    public var phase: String
    public var loaded: Int64
    /// `-1` when unknown.
    public var total: Int64
}

/// What the app's hook sees of every proxied request, once it is over (logging, metrics).
public struct ProxyRecord: Sendable {
    /// The request as the page sent it (the body decoded).
    public var method: String
    public var url: URL
    public var requestHeaders: [(name: String, value: String)]
    public var requestBodyBytes: Int
    /// Every URL the request visited, the first included.
    public var hops: [URL]
    /// The final status, or `nil` when it failed.
    public var status: Int?
    public var responseHeaders: [(name: String, value: String)]
    public var responseBodyBytes: Int
    /// The failure code (`timeout`, `too_many_redirects`, `cancelled`, …) when it failed.
    public var failure: String?
    /// Seconds from start to end.
    public var duration: Double
}
