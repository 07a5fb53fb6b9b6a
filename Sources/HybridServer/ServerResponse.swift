import Foundation

/// What a route answers. A plain value: the server writes it on its own thread.
public struct ServerResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Response headers; repeated fields (several `Set-Cookie`) are sent as separate lines.
    public var headers: HTTPHeaders
    /// The complete body (the server announces its length).
    public var body: Data
    /// Hold the whole response back this long (a slow server). The server thread keeps serving
    /// other requests meanwhile: the message is paused and resumed by a GLib timeout.
    public var delay: Duration?
    /// Send the body in pieces over time (a slow download, for progress and abort tests).
    /// `Content-Length` is still announced up front.
    public var pacing: Pacing?

    /// Body pacing: `chunkSize` bytes every `interval`.
    public struct Pacing: Sendable, Hashable {
        /// Bytes per piece (at least 1).
        public var chunkSize: Int
        /// The pause before each piece.
        public var interval: Duration
        /// Pacing of `chunkSize` bytes (at least one) every `interval`.
        public init(chunkSize: Int, interval: Duration) {
            self.chunkSize = max(1, chunkSize)
            self.interval = interval
        }
    }

    /// A response; without a `Content-Type` header libsoup sends none.
    public init(status: Int = 200, headers: HTTPHeaders = [:], body: Data = Data(), delay: Duration? = nil, pacing: Pacing? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.pacing = pacing
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: Int = 200) -> ServerResponse {
        ServerResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Data(text.utf8))
    }

    /// A `text/html; charset=utf-8` response.
    public static func html(_ html: String, status: Int = 200) -> ServerResponse {
        ServerResponse(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: Data(html.utf8))
    }

    /// A JSON response of an `Encodable` value (keys sorted, so bodies are stable in tests).
    public static func json(_ value: some Encodable, status: Int = 200) -> ServerResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(value)) ?? Data("null".utf8)
        return ServerResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// A redirect to `location` (absolute or relative), 302 unless told otherwise.
    public static func redirect(to location: String, status: Int = 302) -> ServerResponse {
        ServerResponse(status: status, headers: ["Location": location, "Content-Type": "text/plain; charset=utf-8"],
                       body: Data("redirecting to \(location)\n".utf8))
    }

    /// An empty response with only a status (`404`, `204`, …).
    public static func status(_ status: Int) -> ServerResponse {
        ServerResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"],
                       body: status == 204 || status == 304 ? Data() : Data("\(status)\n".utf8))
    }

    /// Returns a copy with one more header field.
    public func adding(header name: String, _ value: String) -> ServerResponse {
        var copy = self
        copy.headers.add(name, value)
        return copy
    }

    /// Returns a copy held back by `delay`.
    public func delayed(by delay: Duration) -> ServerResponse {
        var copy = self
        copy.delay = delay
        return copy
    }
}
