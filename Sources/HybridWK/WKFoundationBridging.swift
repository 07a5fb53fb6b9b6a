#if canImport(WebKit)
import Foundation
import HybridCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebKit

// Conversions between the seam's values and the Foundation/WebKit types WKWebView speaks.

extension URLRequest {
    /// The request WKWebView loads for an ``EngineRequest`` (method, headers, body).
    init(_ request: EngineRequest) {
        self.init(url: request.url)
        httpMethod = request.method
        for (name, value) in request.headers { addValue(value, forHTTPHeaderField: name) }
        httpBody = request.body
    }

    /// Headers in a stable order (Foundation keeps them in a dictionary).
    var orderedHeaders: [(name: String, value: String)] {
        (allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
    }

    /// The body as WebKit hands it over: in `httpBody`, or (for large bodies) as a stream.
    var bodyData: Data? {
        if let httpBody { return httpBody }
        guard let stream = httpBodyStream else { return nil }
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }
}

extension EngineRequest {
    init?(_ request: URLRequest) {
        guard let url = request.url else { return nil }
        self.init(url: url, method: request.httpMethod ?? "GET", headers: request.orderedHeaders, body: request.httpBody)
    }
}

extension HistoryItem {
    @MainActor init(_ item: WKBackForwardListItem) {
        let title = item.title
        self.init(url: item.url, title: title?.isEmpty == true ? nil : title)
    }
}

extension NavigationType {
    init(_ type: WKNavigationType) {
        switch type {
        case .linkActivated: self = .linkActivated
        case .formSubmitted: self = .formSubmitted
        case .backForward: self = .backForward
        case .reload: self = .reload
        case .formResubmitted: self = .formResubmitted
        default: self = .other
        }
    }
}

extension Cookie {
    /// The cookie a WebKit `HTTPCookie` describes, SameSite included.
    init(webKit cookie: HTTPCookie) {
        self.init(cookie)
        switch cookie.sameSitePolicy {
        case HTTPCookieStringPolicy.sameSiteLax?: sameSite = .lax
        case HTTPCookieStringPolicy.sameSiteStrict?: sameSite = .strict
        default: sameSite = .none
        }
    }

    /// The `HTTPCookie` WebKit stores for this cookie, or `nil` when Foundation refuses it.
    var webKitCookie: HTTPCookie? {
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: name, .value: value, .path: path,
            .domain: hostOnly ? domain : "." + domain,
        ]
        if let expires { properties[.expires] = expires }
        if secure { properties[.secure] = "TRUE" }
        if httpOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
        switch sameSite {
        case .lax: properties[.sameSitePolicy] = HTTPCookieStringPolicy.sameSiteLax
        case .strict: properties[.sameSitePolicy] = HTTPCookieStringPolicy.sameSiteStrict
        case .none, .unspecified: break
        }
        return HTTPCookie(properties: properties)
    }
}
#endif
