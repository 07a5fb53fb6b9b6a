import Foundation
import HybridCore

/// One HTTP request to the endpoint, as any listener hands it over (HybridServer's libsoup
/// server in `hybrid webdriver`, an app's own loopback listener elsewhere).
public struct WebDriverRequest: Sendable {
    /// `GET`, `POST` or `DELETE`.
    public var method: String
    /// The percent-encoded path, token prefix included (`/TOKEN/session/ID/url`).
    public var path: String
    /// The `Host` header, checked against the endpoint's loopback addresses (DNS rebinding).
    public var host: String?
    /// The `Origin` header: a browser sends one with a page's request, a WebDriver client never does.
    public var origin: String?
    /// The JSON body (empty for `GET` and `DELETE`).
    public var body: Data

    /// A request from its parts.
    public init(method: String, path: String, host: String?, origin: String? = nil, body: Data = Data()) {
        self.method = method
        self.path = path
        self.host = host
        self.origin = origin
        self.body = body
    }
}

/// The endpoint's answer: an HTTP status and a JSON body (`{"value": …}`).
public struct WebDriverResponse: Sendable, Equatable {
    /// The HTTP status: 200, or the error's (``WebDriverError/Code-swift.enum/httpStatus``).
    public var status: Int
    /// The JSON document.
    public var body: JSONValue

    /// `{"value": value}` with status 200.
    public static func success(_ value: JSONValue) -> WebDriverResponse { WebDriverResponse(status: 200, body: ["value": value]) }

    /// The error's status and body.
    public static func failure(_ error: WebDriverError) -> WebDriverResponse {
        WebDriverResponse(status: error.code.httpStatus, body: error.body)
    }

    /// The body as UTF-8 JSON text.
    public var data: Data { Data(body.jsonText.utf8) }
}
