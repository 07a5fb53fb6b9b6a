import Foundation
import HybridNetwork
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridEngine

/// A page's HTML fetched natively, ready to be shown as the response for its URL.
public struct PreloadedPage: Sendable {
    /// The document's URL (after redirects).
    public var url: URL
    /// The response body: the page's HTML.
    public var data: Data
    /// The response's MIME type (`text/html` or `application/xhtml+xml`).
    public var mimeType: String
    /// The charset the response declared, if any.
    public var encoding: String?
}

/// Overlaps the network with view creation: fetches a page's HTML with `URLSession` and the
/// app's cookie jar the moment a container is asked to open it, while the view is created or
/// dequeued, so the engine is handed the bytes as the response for that URL
/// (``WebEngine/loadSimulatedResponse(_:mimeType:encoding:for:)``) instead of waiting for view
/// creation and then the network, one after the other.
///
/// Only what the engine would have shown the same way is preloaded: a `GET` answered `200` with
/// an HTML type and no `Cache-Control: no-store`, and no `Set-Cookie` (a response that sets
/// cookies is left to the engine, so its cookie handling stays the engine's — see
/// `docs/cookies.md` on Foundation's header folding). Anything else returns `nil`, and the
/// container loads the URL normally.
public struct PagePreloader: Sendable {
    /// Where the `Cookie` header comes from (the app's jar, the single source of truth).
    public var jar: CookieJar?
    /// Extra request headers (tokens, an app User-Agent).
    public var headers: [String: String]
    /// Give up and load normally after this long (seconds).
    public var timeout: TimeInterval
    /// Responses larger than this are not preloaded.
    public var maximumBytes: Int

    /// A preloader; by default no jar, no extra headers, a 10-second timeout and an 8 MiB limit.
    public init(jar: CookieJar? = nil, headers: [String: String] = [:], timeout: TimeInterval = 10, maximumBytes: Int = 8 << 20) {
        self.jar = jar
        self.headers = headers
        self.timeout = timeout
        self.maximumBytes = maximumBytes
    }

    /// Starts fetching `url` now; await the task's value when the view is ready.
    public func start(_ url: URL) -> Task<PreloadedPage?, Never> {
        let preloader = self
        return Task.detached { await preloader.fetch(url) }
    }

    /// Fetches `url`; `nil` when it is not a preloadable HTML page or the fetch failed.
    public func fetch(_ url: URL) async -> PreloadedPage? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        var request = URLRequest(url: url, cachePolicy: .useProtocolCachePolicy, timeoutInterval: timeout)
        request.httpShouldHandleCookies = false
        request.setValue("text/html,application/xhtml+xml;q=0.9,*/*;q=0.8", forHTTPHeaderField: "Accept")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let cookie = jar?.cookieHeader(for: url) { request.setValue(cookie, forHTTPHeaderField: "Cookie") }
        let outcome: (Data, URLResponse)? = await withCheckedContinuation { continuation in
            Self.session.dataTask(with: request) { data, response, error in
                if error == nil, let response { continuation.resume(returning: (data ?? Data(), response)) } else {
                    continuation.resume(returning: nil)
                }
            }.resume()
        }
        guard let (data, response) = outcome, let http = response as? HTTPURLResponse else { return nil }
        return Self.page(from: http, data: data, maximumBytes: maximumBytes)
    }

    /// The page for a response, or `nil` when it must be left to a normal load.
    static func page(from response: HTTPURLResponse, data: Data, maximumBytes: Int) -> PreloadedPage? {
        guard response.statusCode == 200, data.count <= maximumBytes, let url = response.url else { return nil }
        let header = { (name: String) in response.value(forHTTPHeaderField: name) }
        let type = header("Content-Type") ?? ""
        let parts = type.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let mime = parts.first?.lowercased(), mime == "text/html" || mime == "application/xhtml+xml" else { return nil }
        if let cacheControl = header("Cache-Control")?.lowercased(), cacheControl.contains("no-store") { return nil }
        if header("Set-Cookie") != nil { return nil }
        if header("Vary")?.contains("*") == true { return nil }
        let charset = parts.dropFirst().first { $0.lowercased().hasPrefix("charset=") }
            .map { String($0.dropFirst("charset=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        return PreloadedPage(url: url, data: data, mimeType: mime, encoding: charset ?? "utf-8")
    }

    /// One session for every preload: connections to the origin are reused across opens.
    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.default
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }()
}
