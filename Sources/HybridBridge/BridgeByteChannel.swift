import Foundation
import HybridBase

/// The bridge's byte channel: a custom scheme, `hybrid-bytes://<store>/<token>`, through which the
/// page runtime moves large byte values as request and response bodies instead of base64 text in
/// script messages (docs/bridge.md, "Bytes without base64"). An engine that cannot serve a custom
/// scheme to `fetch` serves the same handler at a loopback HTTP endpoint of its own instead
/// (``WebEngineProvider/byteChannelOrigin``, Blink): the page then reaches it at
/// `<endpoint>/<store>/<token>`, and the engine hands each request to ``respond(to:)`` at its
/// `hybrid-bytes:` URL.
///
/// `POST` with a token the runtime made keeps the body in the view's ``BridgeByteStore`` (a call
/// then names it as `{"$blob": token, "size": N}`); `GET` takes the bytes of a reply, once. Only
/// the origin ``BridgeHost`` gives it is answered (the main frame's last committed document's,
/// checked against the request's `Origin` header), with CORS headers for that origin alone; the engine routes each request to the handler of the view that made it, so no
/// other view reaches this store. ``BridgeHost`` installs it where the engine declares
/// ``EngineCapabilities/byteChannel``.
public struct BridgeByteChannel: URLSchemeHandler {
    /// The channel's URL scheme.
    public static let scheme = ContainerSchemes.byteChannel
    /// Byte values of at least this many bytes take the channel; smaller ones stay inline as
    /// `$bytes` (below it a request costs more than base64 saves).
    public static let defaultThreshold = 64 << 10

    /// The store requests put into and take from.
    public let store: BridgeByteStore
    /// The host part of the channel's URLs: a random name for this store.
    public let storeID: String
    /// The loopback origin the engine serves the channel at (`http://127.0.0.1:PORT`), or `nil`
    /// for the channel's own scheme.
    public let endpoint: String?
    /// The origins whose pages may call a module of the bridge (the union of the modules'
    /// allowlists): an engine that must let a page reach its loopback endpoint explicitly (Blink's
    /// Local Network Access permission) does so for these only.
    public let pageOrigins: [OriginPattern]
    let origin: @MainActor @Sendable () -> BridgeOrigin?
    private let published = LockedState<BridgeOrigin?>(nil)

    /// A channel over `store`, answering only the origin `origin()` returns at each request.
    /// - Parameters:
    ///   - store: The view's byte store.
    ///   - storeID: The store's random name (the capability in the channel's URLs).
    ///   - endpoint: Where the engine serves the channel (``WebEngineProvider/byteChannelOrigin``);
    ///     `nil`: at `hybrid-bytes://`, through the engine's custom-scheme handling.
    ///   - pageOrigins: The origins whose pages may call the bridge's modules (``pageOrigins``).
    ///   - origin: The only page origin answered, asked at each request.
    public init(store: BridgeByteStore, storeID: String = BridgeByteStore.makeToken(), endpoint: String? = nil,
                pageOrigins: [OriginPattern] = [.any], origin: @escaping @MainActor @Sendable () -> BridgeOrigin?) {
        self.store = store
        self.storeID = storeID
        self.endpoint = endpoint
        self.pageOrigins = pageOrigins
        self.origin = origin
    }

    /// The URL prefix the page runtime posts to and fetches from: `hybrid-bytes://<store>/`, or
    /// `<endpoint>/<store>/` where the engine serves the channel at a loopback endpoint.
    public var baseURL: String { endpoint.map { "\($0)/\(storeID)/" } ?? "\(Self.scheme)://\(storeID)/" }

    /// Whether a page at `url` may call a module of the bridge, so an engine should let it reach
    /// the channel's loopback endpoint (``pageOrigins``).
    public func admitsPage(at url: URL) -> Bool { pageOrigins.admits(BridgeOrigin(url: url)) }

    /// The URL prefix the page runtime fetches a reply's bytes from: ``baseURL``, or at a loopback
    /// endpoint `<endpoint>/<store>/read/`, a path of its own so the engine can single out the
    /// page's reads (Blink pauses them to add the view's key; it cannot pause a POST without its body
    /// crossing the DevTools pipe).
    public var readURL: String { endpoint == nil ? baseURL : baseURL + "read/" }

    /// Answers a `POST` (keep the body under the URL's token), a `GET` (take the token's bytes)
    /// or an `OPTIONS` preflight, for the origin `origin()` returns only; everything else gets
    /// a 4xx without CORS headers, so the page cannot read it.
    @MainActor public func respond(to request: SchemeRequest) async throws -> SchemeResponse {
        answer(request, allowing: origin())
    }

    /// What ``respond(to:)`` answers, decided on the calling thread with the origin the host last
    /// published (``publishOrigin(_:)``), for an endpoint that serves requests on threads of its
    /// own; a read of a feed (``BridgeByteFeed``) gives the feed itself (`feed`; the response's body
    /// is then empty), for the endpoint to write its bytes as they arrive, on its own thread. `nil`
    /// when no origin is published (ask ``respond(to:)`` on the main actor then).
    package func answerOnThread(to request: SchemeRequest) -> (response: SchemeResponse, feed: BridgeByteFeed?)? {
        guard let published = published.withLock({ $0 }) else { return nil }
        switch decide(request, allowing: published) {
        case .response(let response): return (response, nil)
        case .feed(let feed, let headers): return (SchemeResponse(status: 200, headers: headers, body: .data(Data())), feed)
        }
    }

    /// For an endpoint that reads posts itself, on its own threads: the sink a `POST` of `request`
    /// (its head; the body not read yet) streams into, taken out of the store (``BridgeByteSink``),
    /// with the CORS headers of its answer; `nil` when the post is not the page's origin's, or its
    /// token names no sink (the endpoint then reads the body and asks ``answerOnThread(to:)``).
    package func sink(forPost request: SchemeRequest) -> (sink: any BridgeByteSink, headers: [(name: String, value: String)])? {
        guard request.method.uppercased() == "POST", request.url.host == storeID,
              let cors = Self.admitted(request, allowing: published.withLock({ $0 })),
              let sink = store.takeSink(String(request.url.path.dropFirst()))
        else { return nil }
        return (sink, Self.corsHeaders(cors))
    }

    /// Publishes the origin the channel answers, for ``answerOnThread(to:)``; `nil`
    /// withdraws it (requests then ask ``respond(to:)``). The host publishes the same origin its
    /// `origin` closure returns, each time that changes.
    public func publishOrigin(_ origin: BridgeOrigin?) {
        published.withLock { $0 = origin }
    }

    /// A channel's answer: a response, or (a read of a feed) the feed and the response's headers.
    private enum Answer {
        case response(SchemeResponse)
        case feed(BridgeByteFeed, headers: [(name: String, value: String)])
    }

    private func answer(_ request: SchemeRequest, allowing allowed: BridgeOrigin?) -> SchemeResponse {
        switch decide(request, allowing: allowed) {
        case .response(let response): response
        case .feed(let feed, let headers): SchemeResponse(status: 200, headers: headers, body: .stream(feed.chunks, length: nil))
        }
    }

    /// The request's `Origin` when it is `allowed` (the only origin answered, with CORS for it alone).
    private static func admitted(_ request: SchemeRequest, allowing allowed: BridgeOrigin?) -> String? {
        guard let allowed, let sent = request.header("Origin"), let url = URL(string: sent), BridgeOrigin(url: url) == allowed else { return nil }
        return sent
    }

    private func decide(_ request: SchemeRequest, allowing allowed: BridgeOrigin?) -> Answer {
        guard let cors = Self.admitted(request, allowing: allowed) else { return .response(Self.refusal(403, "not the page's origin", cors: nil)) }
        guard request.url.host == storeID else { return .response(Self.refusal(404, "no such store", cors: cors)) }
        let token = String(request.url.path.dropFirst())
        switch request.method.uppercased() {
        case "OPTIONS":
            // A loopback endpoint asked from a page of another address space: Chromium's Private
            // Network Access preflight wants the permission said in so many words.
            let network: [(name: String, value: String)] =
                request.header("Access-Control-Request-Private-Network")?.lowercased() == "true"
                    ? [("Access-Control-Allow-Private-Network", "true")] : []
            return .response(SchemeResponse(status: 204, headers: Self.corsHeaders(cors) + network + [
                ("Access-Control-Allow-Methods", "GET, POST"), ("Access-Control-Max-Age", "600")], body: .data(Data())))
        case "POST":
            guard let body = request.body else {
                // An endpoint that read no body because its declared length is over the limit.
                if let declared = request.header("Content-Length").flatMap(Int.init), declared > store.limits.maxEntryBytes {
                    return .response(Self.refusal(413, "\(BridgeByteStore.Refusal.tooLarge(size: declared, limit: store.limits.maxEntryBytes))", cors: cors))
                }
                return .response(Self.refusal(400, "no body", cors: cors))
            }
            do {
                try store.put(body, token: token)
            } catch {
                return .response(Self.refusal(Self.status(of: error), "\(error)", cors: cors))
            }
            return .response(SchemeResponse(status: 200, headers: Self.corsHeaders(cors), body: .data(Data())))
        case "GET":
            if let feed = store.takeFeed(token) {
                // A feed: its bytes as they arrive (the response's length is not known).
                return .feed(feed, headers: Self.corsHeaders(cors) + [("Content-Type", "application/octet-stream")])
            }
            do {
                let data = try store.take(token)
                return .response(SchemeResponse(status: 200, headers: Self.corsHeaders(cors) + [
                    ("Content-Type", "application/octet-stream"), ("Content-Length", String(data.count))], body: .data(data)))
            } catch {
                return .response(Self.refusal(Self.status(of: error), "\(error)", cors: cors))
            }
        default:
            return .response(Self.refusal(405, "only GET and POST", cors: cors))
        }
    }

    private static func corsHeaders(_ origin: String) -> [(name: String, value: String)] {
        [("Access-Control-Allow-Origin", origin), ("Vary", "Origin"), ("Cache-Control", "no-store")]
    }

    private static func refusal(_ status: Int, _ message: String, cors: String?) -> SchemeResponse {
        SchemeResponse(status: status, contentType: "text/plain; charset=utf-8",
                       headers: cors.map(corsHeaders) ?? [("Cache-Control", "no-store")], data: Data(message.utf8))
    }

    private static func status(of refusal: BridgeByteStore.Refusal) -> Int {
        switch refusal {
        case .tooLarge: 413
        case .full: 507
        case .badToken: 400
        case .duplicateToken: 409
        case .unknownToken: 404
        case .wrongSize: 400
        }
    }
}

extension BridgeBytes {
    /// The bytes a `{"$blob": token, "size": N}` param names, taken from the bound store.
    static func takeFromChannel(_ token: String, size: Int) throws -> Data {
        guard let binding = BridgeByteStore.bound else {
            throw BridgeFailure.malformed("$blob: this view has no byte channel")
        }
        do {
            return try binding.store.take(token, size: size)
        } catch .unknownToken {
            throw BridgeFailure.malformed("$blob: no bytes under this token (never posted, already used, expired, or freed)")
        } catch .wrongSize(let expected, let actual) {
            throw BridgeFailure.malformed("$blob: \(actual) bytes were posted, the call says \(expected)")
        } catch {
            throw BridgeFailure.malformed("$blob: \(error)")
        }
    }

    /// The token `data` was put under in the bound store, when it is large enough for the channel
    /// and the store has room; `nil`: it goes inline as base64.
    static func channelToken(for data: Data) -> String? {
        guard let binding = BridgeByteStore.bound, data.count >= binding.threshold else { return nil }
        return try? binding.store.put(data)
    }

    /// JSON text for `data`: a `$blob` token in the bound store when it is large enough and the
    /// store has room, `$bytes` base64 otherwise.
    static func outboundText(_ data: Data) -> String {
        if let token = channelToken(for: data) {
            return #"{"$blob":""# + token + #"","size":"# + String(data.count) + "}"
        }
        return #"{"$bytes":""# + data.base64EncodedString() + #""}"#
    }
}

extension JSONValue {
    /// This value with every `{"$blob": token, "size": N}` object replaced by the posted bytes as
    /// `{"$bytes": base64}`, so a module that takes raw JSON sees what it saw before the channel.
    func inliningChannelBytes() throws -> JSONValue {
        switch self {
        case .object(let members):
            if members.count == 2, case .string(let token)? = members["$blob"], case .number(let size)? = members["size"] {
                let data = try BridgeBytes.takeFromChannel(token, size: Int(exactly: size) ?? -1)
                return ["$bytes": .string(data.base64EncodedString())]
            }
            return .object(try members.mapValues { try $0.inliningChannelBytes() })
        case .array(let items):
            return .array(try items.map { try $0.inliningChannelBytes() })
        default:
            return self
        }
    }
}
