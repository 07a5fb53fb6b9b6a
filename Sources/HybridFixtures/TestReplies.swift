import Foundation

/// What `/echo` answers: the request exactly as the server saw it.
public struct EchoReply: Codable, Sendable, Equatable {
    /// The request's method, as sent.
    public var method: String
    /// The request's percent-encoded path, as sent.
    public var path: String
    /// The raw query string, without `?`.
    public var query: String?
    /// Every header field in order, as `[name, value]` pairs (repeated fields kept).
    public var headers: [[String]]
    /// The body as text, when it is valid UTF-8 and at most ``TestRoutes/echoBodyLimit`` bytes.
    public var body: String?
    /// The body in base64, when it is not UTF-8 and at most ``TestRoutes/echoBodyLimit`` bytes.
    public var bodyBase64: String?
    /// The body's length in bytes.
    public var bodyLength: Int
    /// Lower-case hex SHA-256 of the body (so a 50 MB upload can be checked without echoing it).
    public var bodySHA256: String

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.first?.equalsIgnoringASCIICase(name) == true }?.last
    }
}

/// What `/cookies/echo` answers: the `Cookie` header the server received, and its pairs in order.
public struct CookieEchoReply: Codable, Sendable, Equatable {
    /// The `Cookie` header(s) joined with `; `, or `nil` when none was sent.
    public var header: String?
    /// `[name, value]` pairs in the order the client sent them.
    public var cookies: [[String]]
    /// The host the request was addressed to (`Host` without port).
    public var host: String?

    /// The value of cookie `name`, if sent.
    public func value(_ name: String) -> String? { cookies.first { $0.first == name }?.last }
    /// The cookie names in the order sent.
    public var names: [String] { cookies.compactMap(\.first) }
}

/// What `/cookies/set` answers: the `Set-Cookie` headers it sent.
public struct CookieSetReply: Codable, Sendable, Equatable {
    /// Each `Set-Cookie` header value, in the order sent.
    public var setCookie: [String]
}

/// What `/multipart` answers.
public struct MultipartReply: Codable, Sendable, Equatable {
    /// One uploaded file, described rather than echoed.
    public struct File: Codable, Sendable, Equatable {
        /// The part's `name` parameter.
        public var name: String?
        /// The part's `filename` parameter.
        public var filename: String?
        /// The part's own `Content-Type`, if any.
        public var contentType: String?
        /// The file's size in bytes.
        public var size: Int
        /// Lower-case hex SHA-256 of the file's bytes.
        public var sha256: String

        /// A file description from its parts.
        public init(name: String?, filename: String?, contentType: String?, size: Int, sha256: String) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.size = size
            self.sha256 = sha256
        }
    }
    /// Text fields, name → value.
    public var fields: [String: String]
    /// The parts that carried a file name, in order.
    public var files: [File]
}
