import Foundation
import HybridCore

/// Pages served from memory through a custom scheme (`hybrid-test://app/PATH`), so tests load
/// real documents with a real origin and relative URLs, with no server.
public struct TestPages: URLSchemeHandler {
    /// `hybrid-test`: the scheme tests register these pages under.
    public static let scheme = "hybrid-test"
    /// The pages by path (without a leading `/`), with their MIME type.
    public let files: [String: (type: String, body: Data)]

    /// Pages from text; the type follows the extension (`.js`, `.css`, otherwise HTML).
    public init(_ files: [String: String]) {
        var typed: [String: (type: String, body: Data)] = [:]
        for (path, text) in files {
            let type = path.hasSuffix(".js") ? "text/javascript" : path.hasSuffix(".css") ? "text/css" : "text/html"
            typed[path] = (type, Data(text.utf8))
        }
        self.files = typed
    }

    /// Pages with explicit MIME types and bytes.
    public init(typed: [String: (type: String, body: Data)]) { files = typed }

    /// The URL of `path` on this scheme.
    public static func url(_ path: String, host: String = "app") -> URL {
        URL(string: "\(scheme)://\(host)/\(path)")!
    }

    /// Answers with the page at the URL's path, or `404` with a plain-text body.
    @MainActor public func respond(to request: SchemeRequest) async throws -> SchemeResponse {
        let path = String(request.url.path.drop(while: { $0 == "/" }))
        guard let file = files[path] else {
            return SchemeResponse(status: 404, contentType: "text/plain", data: Data("not found: \(path)".utf8))
        }
        return SchemeResponse(status: 200, contentType: file.type, data: file.body)
    }
}
