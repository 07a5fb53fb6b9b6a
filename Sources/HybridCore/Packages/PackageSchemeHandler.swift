import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridBase
import HybridPackages

/// Serves the active version of one package through a custom URL scheme, falling back to the
/// network at the package's real origin for anything the package lacks.
///
/// Register it for the custom scheme (`app` for `app://m.example.com/app/index.html`); it checks
/// the store's active version on each request (the identity of one small file, read again when
/// it changed), so an activation or rollback takes effect on the next request without
/// re-registering. The bytes of small files it has read are kept in memory (by content hash),
/// so a page opened again is served on the main thread at once, without a file read or a thread
/// hop per request.
///
/// ```swift
/// let store = PackageStore(root: supportDirectory.appendingPathComponent("packages"))
/// let installer = PackageInstaller(store: store, platform: .native, verifier: try Ed25519KeyFiles.verifier(at: publicKey))
/// let configuration = EngineConfiguration(schemeHandlers: ["app": PackageSchemeHandler(store: store, id: "shop", customScheme: "app")])
/// // load app://m.example.com/app/, then on load finished: try installer.markLoaded("shop")
/// //                                   on a failed load:    try installer.rollback("shop") and reload
/// ```
public struct PackageSchemeHandler: URLSchemeHandler {
    /// Fetches `url` (at the package's real origin) for a request the package cannot answer.
    public typealias NetworkFetch = @Sendable (_ request: SchemeRequest, _ url: URL) async throws -> SchemeResponse

    /// The store whose active version of ``id`` is served.
    public let store: PackageStore
    /// The package served.
    public let id: String
    /// The scheme the container loads the package through (`app` for `app://m.example.com/…`).
    public let customScheme: String
    /// Sources the package documents' default Content-Security-Policy adds to `connect-src`
    /// (``PackageResolver/defaultContentSecurityPolicy(origin:connectSources:)``). A
    /// ``HybridWebView`` adds its bridge's byte channel endpoint where the engine serves the
    /// channel at a loopback origin (Blink), so a package page's large bytes take it rather than
    /// base64. Empty by default.
    public var connectSources: [String] = []
    private let network: NetworkFetch
    private let cache = PackageServingCache()

    /// - Parameters:
    ///   - network: the fallback; by default `URLSession.shared`, which sends and stores cookies
    ///     through `HTTPCookieStorage.shared`, the app's cookie jar.
    public init(store: PackageStore, id: String, customScheme: String, network: NetworkFetch? = nil) {
        self.store = store
        self.id = id
        self.customScheme = customScheme
        self.network = network ?? Self.urlSessionFetch
    }

    /// Answers from the active version (``PackageResolver``); what it sends to the network, and
    /// every request while no version is installed, goes through the network fallback.
    @MainActor public func respond(to request: SchemeRequest) async throws -> SchemeResponse {
        let store = self.store, id = self.id, scheme = self.customScheme, cache = self.cache, sources = connectSources
        // A file served before, of the version still active, is answered at once from memory: one
        // look at the active record's file, no read. Everything else reads files off the main
        // thread, where the engine lives.
        let resolution: PackageResolver.Resolution
        if let remembered = cache.resolveFromMemory(request, activeFile: store.activeURL(id), connectSources: sources) {
            resolution = remembered
        } else {
            resolution = await Task.detached { () -> PackageResolver.Resolution in
                guard let resolver = cache.resolver(store: store, id: id, scheme: scheme, connectSources: sources) else {
                    var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
                    if components?.scheme?.lowercased() == scheme.lowercased() { components?.scheme = "https" }
                    return .network(components?.url ?? request.url)
                }
                return resolver.resolve(request, keepingBytesIn: cache.bytes)
            }.value
        }
        switch resolution {
        case .response(let response): return response
        case .network(let url): return try await network(request, url)
        }
    }

    /// The manifest of the version this handler serves now (``PackageStore/activePackage(_:)``'s),
    /// from memory while the store's active record is the one it last served from: one `stat`
    /// instead of reading and decoding the manifest, which the container asks for on every open.
    /// `nil` when no version is installed.
    public var activeManifest: PackageManifest? { cache.activeManifest(store: store, id: id) }

    /// The default fallback: performs the request with `URLSession.shared`.
    public static let urlSessionFetch: NetworkFetch = { request, url in
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for (name, value) in request.headers where !["host", "content-length"].contains(name.lowercased()) {
            urlRequest.addValue(value, forHTTPHeaderField: name)
        }
        let (data, response): (Data, URLResponse) = try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: urlRequest) { data, response, error in
                if let error { continuation.resume(throwing: error) } else if let response {
                    continuation.resume(returning: (data ?? Data(), response))
                } else {
                    continuation.resume(throwing: HybridError.pkg(.downloadFailed(url: url.absoluteString, message: "no response")))
                }
            }.resume()
        }
        let http = response as? HTTPURLResponse
        // URLSession has already decoded the body: its encoding and length headers no longer apply.
        let headers = (http?.allHeaderFields ?? [:]).compactMap { key, value -> (name: String, value: String)? in
            guard let name = key as? String, !["content-encoding", "content-length", "transfer-encoding"].contains(name.lowercased()) else { return nil }
            return (name, "\(value)")
        }
        return SchemeResponse(status: http?.statusCode ?? 200, headers: headers, body: .data(data))
    }
}
