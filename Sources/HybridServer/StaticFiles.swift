import Foundation
import HybridBase

/// Serves a directory read-only: correct content types, `ETag`/`If-None-Match` → 304,
/// `Last-Modified`/`If-Modified-Since`, single `Range` → 206/416, `HEAD`, `index.html` for
/// directories, and gzip for text types when the client accepts it. Nothing outside the root is reachable: `..`, `.` and encoded slashes or dots
/// (`%2e%2e`, `%2f`) in any segment, backslashes, NUL and symbolic links leading out of the
/// root all answer 404 — the same answer as a missing file, so probing learns nothing.
public struct StaticFiles: Sendable {
    /// The directory served (symbolic links resolved).
    public let root: URL
    /// The route prefix the directory is mounted at (`/` or `/static`).
    public let prefix: String
    /// The file answered for a directory.
    public var indexFile = "index.html"
    /// Sent with every file; `no-cache` makes clients revalidate with the ETag (cheap 304s).
    public var cacheControl = "no-cache"
    /// When set, the `Cache-Control` of each file by its path relative to ``root`` (instead of
    /// ``cacheControl``): a package repository uses ``RepositoryCaching/cacheControl(forPath:)``.
    public var cacheControlForPath: (@Sendable (String) -> String)?
    /// Compress text types for clients that accept gzip (never for ranges).
    public var gzip = true
    #if canImport(CSoup)
    private let encoder = GzipEncoding()
    #endif

    /// Serves `root` for requests below `prefix` (install with ``LoopbackServer/serveDirectory(_:at:)``
    /// or call ``respond(to:)`` from a route of your own).
    public init(root: URL, prefix: String = "/") {
        self.root = root.standardizedFileURL.resolvingSymlinksInPath()
        self.prefix = prefix
    }

    /// The answer for `request` (whose path lies under ``prefix``).
    public func respond(to request: ServerRequest) -> ServerResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return ServerResponse.status(405).adding(header: "Allow", "GET, HEAD")
        }
        guard let segments = Self.segments(of: request.path, below: prefix) else { return .status(404) }
        var file = segments.reduce(root) { $0.appendingPathComponent($1) }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else { return .status(404) }
        if isDirectory.boolValue {
            guard request.path.hasSuffix("/") else {
                // Relative links in the index resolve against the directory only with a trailing slash.
                return .redirect(to: request.path + "/" + (request.rawQuery.map { "?" + $0 } ?? ""), status: 301)
            }
            file = file.appendingPathComponent(indexFile)
        }
        let resolved = file.resolvingSymlinksInPath()
        guard isInsideRoot(resolved),
              let attributes = try? FileManager.default.attributesOfItem(atPath: resolved.path),
              attributes[.type] as? FileAttributeType == .typeRegular,
              let data = try? Data(contentsOf: resolved, options: .mappedIfSafe)
        else { return .status(404) }
        let modified = (attributes[.modificationDate] as? Date) ?? Date(timeIntervalSince1970: 0)
        let caching = cacheControlForPath?(segments.joined(separator: "/")) ?? cacheControl
        return answer(request, file: resolved.path, data: data, modified: modified,
                      contentType: MediaTypes.type(forPath: resolved.lastPathComponent), cacheControl: caching)
    }

    private func answer(_ request: ServerRequest, file: String, data: Data, modified: Date, contentType: String,
                        cacheControl: String) -> ServerResponse {
        var etag = Self.entityTag(size: data.count, modified: modified)
        var data = data
        var headers: HTTPHeaders = [:]
        #if canImport(CSoup)
        if gzip, GzipEncoding.compressible(contentType), data.count >= GzipEncoding.minimumSize,
           request.headers["Range"] == nil {
            headers.add("Vary", "Accept-Encoding")
            if GzipEncoding.accepts(request.headers["Accept-Encoding"]), let encoded = encoder.encode(data, key: file + etag) {
                // Another representation, so another strong validator.
                etag = String(etag.dropLast()) + "-gz\""
                data = encoded
                headers.add("Content-Encoding", "gzip")
            }
        }
        #endif
        for field in [
            "Content-Type": contentType, "ETag": etag, "Last-Modified": HTTPDate.format(modified),
            "Accept-Ranges": "bytes", "Cache-Control": cacheControl, "X-Content-Type-Options": "nosniff",
        ] as HTTPHeaders { headers.add(field.name, field.value) }
        if Self.notModified(request, etag: etag, modified: modified) {
            headers.remove("Content-Type")
            return ServerResponse(status: 304, headers: headers)
        }
        var range = ByteRange(header: request.headers["Range"], length: data.count)
        if let ifRange = request.headers["If-Range"], ifRange != etag { range = .whole }
        switch range {
        case .whole:
            return ServerResponse(status: 200, headers: headers, body: data)
        case .partial(let bytes):
            headers.add("Content-Range", "bytes \(bytes.lowerBound)-\(bytes.upperBound - 1)/\(data.count)")
            return ServerResponse(status: 206, headers: headers, body: data.subdata(in: bytes))
        case .unsatisfiable:
            headers.set("Content-Type", "text/plain; charset=utf-8")
            headers.add("Content-Range", "bytes */\(data.count)")
            return ServerResponse(status: 416, headers: headers, body: Data("416 range not satisfiable\n".utf8))
        }
    }

    /// If-None-Match wins over If-Modified-Since (RFC 9110 §13.2.2); weak comparison.
    private static func notModified(_ request: ServerRequest, etag: String, modified: Date) -> Bool {
        if let match = request.headers["If-None-Match"] {
            let tags = match.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let bare = { (tag: String) in tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag }
            return tags.contains { $0 == "*" || bare($0) == bare(etag) }
        }
        if let since = request.headers["If-Modified-Since"].flatMap(HTTPDate.parse) {
            return modified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        }
        return false
    }

    /// Size and modification time: changes whenever the file does, costs no read.
    static func entityTag(size: Int, modified: Date) -> String {
        let nanos = UInt64(max(0, modified.timeIntervalSince1970 * 1_000_000_000))
        return "\"\(String(size, radix: 16))-\(String(nanos, radix: 16))\""
    }

    /// The decoded path segments below `prefix`, or `nil` for anything that could leave the root.
    static func segments(of path: String, below prefix: String) -> [String]? {
        let base = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        guard path.hasPrefix(base) else { return nil }
        var segments: [String] = []
        for raw in path.dropFirst(base.count).split(separator: "/", omittingEmptySubsequences: true) {
            guard let segment = String(raw).removingPercentEncoding,
                  segment != ".", segment != "..",
                  !segment.contains("/"), !segment.contains("\\"), !segment.contains("\0")
            else { return nil }
            segments.append(segment)
        }
        return segments
    }

    private func isInsideRoot(_ file: URL) -> Bool {
        let rootPath = root.path.hasSuffix("/") ? root.path : root.path + "/"
        return file.standardizedFileURL.path.hasPrefix(rootPath)
    }
}

#if canImport(CSoup)
extension LoopbackServer {
    /// Serves `directory` read-only below `prefix` (see ``StaticFiles``).
    @discardableResult
    public func serveDirectory(_ directory: URL, at prefix: String = "/") -> StaticFiles {
        let files = StaticFiles(root: directory, prefix: prefix)
        route(prefix) { files.respond(to: $0) }
        return files
    }
}
#endif
