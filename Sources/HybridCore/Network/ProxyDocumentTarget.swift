import Foundation
import HybridBase
import HybridEngine

/// Where a proxied form POST's response is shown: the container's engine, as a new document.
///
/// A form POST navigates, so its response must become the page, with the final URL as its
/// address and origin and a history entry — which writing into the old document cannot give
/// (and `document.open()` would strip the bridge's listeners). ``HybridWebView`` connects its
/// engine here when a ``ProxyModule`` is among its modules.
@MainActor
public final class ProxyDocumentTarget: Sendable {
    /// The engine responses are loaded into.
    public weak var engine: (any WebEngine)?

    /// A target with no engine yet.
    public init() {}

    /// Loads `response` as the document at its final URL.
    func present(_ response: ProxyResponse) throws {
        guard let engine else { throw HybridError.network(.internalError("no engine to show the form response in")) }
        guard let url = URL(string: response.url), let body = response.bodyData else {
            throw HybridError.network(.internalError("unreadable form response"))
        }
        let type = response.headers.first { $0.first == "content-type" }?.last ?? "text/html"
        let parts = type.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let mimeType = parts.first.map { $0.lowercased() } ?? "text/html"
        let charset = parts.dropFirst().first { $0.lowercased().hasPrefix("charset=") }.map { String($0.dropFirst(8)) }
        engine.loadSimulatedResponse(body, mimeType: mimeType.isEmpty ? "text/html" : mimeType, encoding: charset, for: url)
    }
}
