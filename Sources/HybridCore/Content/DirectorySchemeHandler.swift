import Foundation
import HybridBase
import HybridPackages

/// Serves an app directory (or bundle resource folder) through a custom scheme — never `file://`
/// — so local pages get a real origin, relative URLs, fetch/XHR and a secure context.
///
/// `scheme://HOST/PATH` maps to `root/PATH`; a directory maps to its `index.html`. The path is
/// percent-decoded once and must stay inside `root` (no `..`, no absolute paths, no symlink
/// escapes): anything else is a 404.
public struct DirectorySchemeHandler: URLSchemeHandler {
    /// The directory served, with symbolic links resolved.
    public let root: URL
    /// Extra headers on every response (a CSP, for instance).
    public var headers: [(name: String, value: String)]

    /// Serves `root`, adding `headers` to every response.
    public init(root: URL, headers: [(name: String, value: String)] = []) {
        self.root = root.standardizedFileURL.resolvingSymlinksInPath()
        self.headers = headers
    }

    /// `false`: a file server needs no request body, so the engine never reads one for it
    /// (see ``URLSchemeHandler/readsRequestBodies``).
    public var readsRequestBodies: Bool { false }

    /// Answers `GET` and `HEAD` with the file the URL's path names (`405` for other methods, `404`
    /// for anything missing or outside ``root``).
    @MainActor public func respond(to request: SchemeRequest) async throws -> SchemeResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return Self.plain(405, "method not allowed")
        }
        guard let file = resolve(request.url) else { return Self.plain(404, "not found") }
        guard let data = FileManager.default.contents(atPath: file.path) else { return Self.plain(404, "not found") }
        return SchemeResponse(
            status: 200, contentType: PackageMediaTypes.type(forPath: file.path),
            headers: headers + [("Cache-Control", "no-cache")],
            data: request.method == "HEAD" ? Data() : data)
    }

    /// The file inside `root` that `url` names, or nil when it escapes `root` or does not exist.
    public func resolve(_ url: URL) -> URL? {
        let rawPath = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        guard let decoded = rawPath.removingPercentEncoding, !decoded.contains("\0"), !decoded.contains("\\") else { return nil }
        let segments = decoded.split(separator: "/", omittingEmptySubsequences: true)
        guard !segments.contains(where: { $0 == ".." || $0 == "." || $0.contains("%") }) else { return nil }
        var candidate = root
        for segment in segments { candidate.appendPathComponent(String(segment)) }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue {
            candidate.appendPathComponent("index.html")
        }
        let resolved = candidate.resolvingSymlinksInPath()
        guard resolved.path == root.path || resolved.path.hasPrefix(root.path + "/") else { return nil }
        guard FileManager.default.fileExists(atPath: resolved.path, isDirectory: &isDirectory), !isDirectory.boolValue else { return nil }
        return resolved
    }

    private static func plain(_ status: Int, _ text: String) -> SchemeResponse {
        SchemeResponse(status: status, contentType: "text/plain; charset=utf-8", data: Data(text.utf8))
    }
}
