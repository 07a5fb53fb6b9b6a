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

    /// The Content Security Policies of the view's latest main-frame response (its headers),
    /// which the next document to call the proxy takes as its own (``policies(for:)``).
    private(set) var mainResponsePolicies: [ContentSecurityPolicy] = []
    /// Each recent document's policies: its response's, then what its `<meta>` tags added.
    private var documents: [(id: Int, policies: [ContentSecurityPolicy])] = []
    /// How many documents' policies are kept (a view has one document at a time; a few more
    /// cover calls of a document on its way out).
    static let keptDocuments = 8

    /// A target with no engine yet.
    public init() {}

    /// The view's main frame received `response` (``HybridWebView`` calls this from the engine's
    /// response policy): its policies are what the document it becomes enforces.
    public func mainResponseArrived(_ response: NavigationResponse) {
        guard response.isMainFrame else { return }
        mainResponsePolicies = ContentSecurityPolicy.parse(headers: response.headers)
    }

    /// The policies `document` enforces and reports. A document seen for the first time takes
    /// the latest main-frame response's; `nil` (a call from no document) has none.
    func policies(for document: Int?) -> [ContentSecurityPolicy] {
        guard let document else { return [] }
        if let found = documents.first(where: { $0.id == document }) { return found.policies }
        documents.append((document, mainResponsePolicies))
        if documents.count > Self.keptDocuments { documents.removeFirst(documents.count - Self.keptDocuments) }
        return mainResponsePolicies
    }

    /// Adds the policies of `<meta http-equiv="Content-Security-Policy">` tags the page script
    /// found in `document`. A meta policy can only add restrictions, so each is appended (the
    /// same text twice is kept once); meta cannot make a report-only policy (CSP3 §3.3).
    func addMetaPolicies(_ texts: [String], document: Int?) {
        guard let document else { return }
        var policies = self.policies(for: document)
        for text in texts.prefix(16) where text.utf8.count <= 16 << 10 {
            let policy = ContentSecurityPolicy(serialized: text, disposition: .enforce, source: .meta)
            guard !policy.directives.isEmpty, !policies.contains(policy) else { continue }
            policies.append(policy)
        }
        if let index = documents.firstIndex(where: { $0.id == document }) { documents[index].policies = policies }
    }

    /// Loads `response` as the document at its final URL.
    func present(_ response: ProxyResponse) throws {
        guard let engine else { throw HybridError.network(.internalError("no engine to show the form response in")) }
        guard let url = URL(string: response.url), let body = response.bodyData else {
            throw HybridError.network(.internalError("unreadable form response"))
        }
        let type = response.headers.first { $0.first == "content-type" }?.last ?? "text/html"
        // The form response becomes the document: its policies are the next document's.
        mainResponsePolicies = ContentSecurityPolicy.parse(headers: response.headers.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil })
        let parts = type.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let mimeType = parts.first.map { $0.lowercased() } ?? "text/html"
        let charset = parts.dropFirst().first { $0.lowercased().hasPrefix("charset=") }.map { String($0.dropFirst(8)) }
        engine.loadSimulatedResponse(body, mimeType: mimeType.isEmpty ? "text/html" : mimeType, encoding: charset, for: url)
    }
}
