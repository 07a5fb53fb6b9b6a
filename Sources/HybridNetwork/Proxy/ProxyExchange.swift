import Foundation
import HybridBridge
import HybridBase

/// A page request as it crosses the bridge (`hybrid.call('proxy', 'request', …)`).
///
/// Headers are `[name, value]` pairs in the page's order; the body is base64 (binary-safe and
/// the cheapest text encoding the engines decode natively).
public struct ProxyRequest: Codable, Sendable, Hashable {
    /// The absolute http(s) URL.
    public var url: String
    /// The method as the page named it (the standard methods are upper-cased here).
    public var method: String
    /// `[name, value]` pairs in the page's order; forbidden names are dropped.
    public var headers: [[String]]
    /// The body as base64; `nil` or empty for none.
    public var body: String?
    /// Milliseconds; `nil` or 0 for the policy's default.
    public var timeout: Double?
    /// `follow` (default), `manual` (the first 3xx is the response) or `error` (a redirect fails).
    public var redirect: String?
    /// The Fetch standard's request mode: `cors` (default), `no-cors`, `same-origin` or
    /// `navigate` (a form POST). Decides the CORS check (``ProxyCORS``).
    public var mode: String?
    /// The credentials mode: `omit`, `same-origin` (default) or `include` (XHR `withCredentials`).
    /// Decides whether the jar's cookies go with a cross-origin request and whether a wildcard
    /// `Access-Control-Allow-Origin` is accepted.
    public var credentials: String?
    /// The URL the `Referer` is made from (the document's, or the one `fetch` was given); `nil`
    /// sends none.
    public var referrer: String?
    /// The referrer policy (`strict-origin-when-cross-origin` when `nil` or empty).
    public var referrerPolicy: String?
    /// `true` forces a CORS preflight for a cross-origin request (an XHR upload with listeners).
    public var preflight: Bool?
    /// `false`: no upload progress is reported (`fetch` has no API that could see it, an XHR
    /// only with upload listeners); `nil` or `true` reports it.
    public var uploadProgress: Bool?
    /// The engine's `User-Agent`, sent unless the page set one.
    public var userAgent: String?
    /// The `Accept-Language` the engine would send for the page's languages (the page script writes
    /// it from `navigator.languages`), sent unless the page set one; ignored unless it is a plain
    /// language list (``ProxyHeaders/isLanguageList(_:)``).
    public var acceptLanguage: String?
    /// Engine behaviours the page script asks the proxy to reproduce where the engines differ
    /// (measured; docs/request-proxy.md): `origin-from-first-hop` (Blink) — a request that
    /// started without an `Origin` header gets none after a redirect to another origin;
    /// `accept-encoding-br-zstd` (Blink) — `Accept-Encoding` names br and zstd as well as gzip and
    /// deflate (WebKitGTK's names the two).
    public var quirks: [String]?
    /// `true`: the response head and body chunks are reported as progress as they arrive
    /// (``ProxyProgress/head`` and ``ProxyProgress/chunk``); the reply carries only what is left.
    public var stream: Bool?
    /// `true` (with ``stream``): a large body may continue in a byte feed the page reads from the
    /// byte channel (``ProxyProgress/feed``), where the view has a channel; the page script asks for
    /// it, so a page calling the module itself keeps getting every byte in reports.
    public var feed: Bool?
    /// `true` (with ``bodySize``): the streamed body is a `Blob` the page can post whole, so its first
    /// pull may offer a sink (``ProxyPull/sink``) where the byte channel takes such posts.
    public var bodyBlob: Bool?
    /// A streamed body of this many bytes, instead of ``body``: the bytes stay in the page, which
    /// hands them over a slice at a time as the transfer asks for them (``ProxyPull``,
    /// ``ProxySlice``), so the app's memory does not grow with the body. Only the page script
    /// (through ``ProxyModule``) can answer; bigger than ``ProxyPolicy/maxBodyBytes`` fails with
    /// `payload_too_large` before anything is asked for.
    public var bodySize: Int64?
    /// `fetch`'s `integrity` metadata (`sha384-…`): the whole body is checked before anything of
    /// the response reaches the page (``SubresourceIntegrity``); the response does not stream.
    public var integrity: String?
    /// `fetch`'s `cache` mode (`default`, `no-store`, `reload`, `no-cache`, `force-cache`,
    /// `only-if-cached`): how the proxy's HTTP cache (``ProxyCache``) serves a GET; `nil` is `default`.
    public var cache: String?

    /// A request.
    /// - Parameters:
    ///   - url: The absolute http(s) URL.
    ///   - method: The method, as the page named it.
    ///   - headers: `[name, value]` pairs.
    ///   - body: The body as base64.
    ///   - timeout: Milliseconds for the whole request.
    ///   - redirect: `follow`, `manual` or `error`.
    ///   - mode: `cors`, `no-cors`, `same-origin` or `navigate`.
    ///   - credentials: `omit`, `same-origin` or `include`.
    public init(url: String, method: String = "GET", headers: [[String]] = [], body: String? = nil,
                timeout: Double? = nil, redirect: String? = nil, mode: String? = nil, credentials: String? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.redirect = redirect
        self.mode = mode
        self.credentials = credentials
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.count == 2 && $0[0].equalsIgnoringASCIICase(name) }.map { $0[1] }
    }
}

/// A proxied response as the page receives it.
public struct ProxyResponse: Codable, Sendable, Hashable {
    /// The HTTP status; 0 for an opaque or opaque-redirect response.
    public var status: Int
    /// The standard reason phrase for ``status`` (Foundation on Linux does not keep the server's).
    public var statusText: String
    /// The final URL, after redirects.
    public var url: String
    /// Whether a redirect was followed on the way.
    public var redirected: Bool
    /// The Fetch standard's response type: `basic` (same origin), `cors` (cross-origin, passed the
    /// CORS check), `opaque` (`no-cors`), `opaqueredirect` (`redirect: 'manual'`).
    public var type: String
    /// `[name, value]` pairs; `Set-Cookie` is left out, as a browser hides it from pages.
    public var headers: [[String]]
    /// The body as base64, empty when it travels as ``text``.
    public var body: String
    /// The body itself when it is UTF-8 text of a textual type (JSON, `text/*`, XML, JavaScript):
    /// most API replies cross the bridge without base64 and the page decodes nothing.
    public var text: String?
    /// The body's length in bytes.
    public var size: Int

    /// A response; the body travels as text when it is UTF-8 of a textual type, else as base64.
    public init(status: Int, statusText: String, url: String, redirected: Bool, type: String = "basic",
                headers: [[String]], body: Data) {
        self.status = status
        self.statusText = statusText
        self.url = url
        self.redirected = redirected
        self.type = type
        self.headers = headers
        self.body = ""
        self.size = 0
        setBody(body)
    }

    /// Replaces the body: as text when it is UTF-8 of a textual type, otherwise as base64.
    mutating func setBody(_ body: Data) {
        size = body.count
        let type = headers.first { $0.first == "content-type" }?.last
        if ProxyHeaders.isUTF8Text(type), let text = String(data: body, encoding: .utf8) {
            self.text = text
            self.body = ""
        } else {
            self.text = nil
            self.body = body.base64EncodedString()
        }
    }

    /// The body's bytes, whichever way it travels.
    public var bodyData: Data? {
        if let text { return Data(text.utf8) }
        return Data(base64Encoded: body)
    }
}

/// Progress of a proxied request: bytes sent, and (when the request asked to ``ProxyRequest/stream``)
/// the response head and body chunks as they arrive.
public struct ProxyProgress: Codable, Sendable, Hashable {
    /// `upload` (bytes sent), `head` (the response's status and headers: ``head``), `data`
    /// (body bytes: ``chunk``) or `pull` (a slice of a streamed request body: ``pull``).
    public var phase: String
    /// Bytes sent (upload) or received so far (data).
    public var loaded: Int64
    /// `-1` when unknown.
    public var total: Int64
    /// The response without its body (phase `head`).
    public var head: ProxyResponse?
    /// Body bytes (phase `data`, or `head` when bytes had already arrived with it), as the bridge
    /// carries bytes: through its byte channel where the engine has one, else as base64.
    public var chunk: BridgeBytes?
    /// Body bytes as text, instead of ``chunk``, when the response is UTF-8 of a textual type.
    public var text: String?
    /// The feed the rest of the body streams through (phase `data`, once): no later report carries
    /// body bytes; the page reads them from the byte channel as they arrive (``ProxyRequest/feed``).
    public var feed: BridgeByteReference?
    /// The slice of a streamed request body the page is asked for (phase `pull`).
    public var pull: ProxyPull?
    /// A report-only Content Security Policy's violation (phase `violation`): the page fires its
    /// `securitypolicyviolation` event; the request goes on.
    public var violation: ContentSecurityPolicy.Violation?

    /// A progress report.
    public init(phase: String, loaded: Int64, total: Int64, head: ProxyResponse? = nil, chunk: BridgeBytes? = nil, text: String? = nil,
                pull: ProxyPull? = nil) {
        self.phase = phase
        self.loaded = loaded
        self.total = total
        self.head = head
        self.chunk = chunk
        self.text = text
        self.pull = pull
    }
}

/// What the app's hook sees of every proxied request, once it is over (logging, metrics).
public struct ProxyRecord: Sendable {
    /// The request as the page sent it (the body decoded).
    public var method: String
    /// The URL the page asked for.
    public var url: URL
    /// The page's headers.
    public var requestHeaders: [(name: String, value: String)]
    /// The request body's size.
    public var requestBodyBytes: Int
    /// Every URL the request visited, the first included.
    public var hops: [URL]
    /// The final status, or `nil` when it failed.
    public var status: Int?
    /// The final response's headers, before CORS filtering.
    public var responseHeaders: [(name: String, value: String)]
    /// The final response body's size.
    public var responseBodyBytes: Int
    /// The failure code (`timeout`, `too_many_redirects`, `cancelled`, …) when it failed.
    public var failure: String?
    /// Seconds from start to end.
    public var duration: Double
    /// What the HTTP cache did for the final hop (``ProxyCache/Outcome``: `hit`, `revalidated`,
    /// `miss`); `nil` when the cache was off or not asked.
    public var cache: String? = nil
}
