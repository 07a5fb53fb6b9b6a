import Foundation

/// A request the engine made to a custom URL scheme (or, on engines that intercept HTTP, to
/// http/https): the same shape as a request the app asks an engine to load.
public typealias SchemeRequest = EngineRequest

/// The answer to a ``SchemeRequest``: status, headers and a body that may be streamed.
public struct SchemeResponse: Sendable {
    /// A response body: all at once or streamed.
    public enum Body: Sendable {
        /// The whole body at once.
        case data(Data)
        /// Chunks as they become available; the stream's end ends the body, an error aborts it.
        case stream(AsyncThrowingStream<Data, any Error>, length: Int64?)
    }

    /// The HTTP status code the page sees.
    public var status: Int
    /// Header fields in order; a name may repeat.
    public var headers: [(name: String, value: String)]
    /// The body, whole or streamed.
    public var body: Body

    /// A response from its parts; `200` by default.
    public init(status: Int = 200, headers: [(name: String, value: String)] = [], body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A complete response with a `Content-Type`.
    public init(status: Int = 200, contentType: String, headers: [(name: String, value: String)] = [], data: Data) {
        self.init(status: status, headers: [("Content-Type", contentType)] + headers, body: .data(data))
    }

    /// The first value of a header, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }
}

/// Serves a custom URL scheme (WKURLSchemeHandler on Apple, `register_uri_scheme` on WebKitGTK,
/// `Fetch.requestPaused` on Blink).
///
/// Throwing fails the request with a network error in the page; it is never answered twice.
public protocol URLSchemeHandler: Sendable {
    /// Answers one request. Throwing fails it with a network error in the page.
    @MainActor func respond(to request: SchemeRequest) async throws -> SchemeResponse

    /// Whether the engine reads request bodies for this handler (`true` by default). A handler
    /// that only serves files says `false`: its requests arrive without a body, and the engine
    /// never reads one. On WebKitGTK 2.50 reading the body of a custom-scheme POST whose body is
    /// a `Blob` (or `FormData` with a file) crashes the app process inside WebKit, so a handler
    /// that needs no body should not expose the app to that (docs/engines.md).
    var readsRequestBodies: Bool { get }
}

extension URLSchemeHandler {
    /// `true`: the handler gets each request's body.
    public var readsRequestBodies: Bool { true }
}

/// A scheme handler made from a closure.
public struct ClosureSchemeHandler: URLSchemeHandler {
    package let body: @MainActor @Sendable (SchemeRequest) async throws -> SchemeResponse
    /// A handler that answers every request with `body`.
    public init(_ body: @escaping @MainActor @Sendable (SchemeRequest) async throws -> SchemeResponse) {
        self.body = body
    }
    /// Answers `request` by calling the closure.
    @MainActor public func respond(to request: SchemeRequest) async throws -> SchemeResponse {
        try await body(request)
    }
}
