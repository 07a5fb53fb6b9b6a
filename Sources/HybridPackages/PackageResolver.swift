import Foundation
import HybridBase

/// Maps a request under a package's origin to a file of the active version, and answers it the
/// way a good static server would: MIME type, `Range`, `ETag`/`If-None-Match`, caching headers
/// and a Content-Security-Policy.
///
/// Requests are matched by host, port and path prefix; the scheme may be the origin's own or the
/// custom scheme the container loads the package through (http/https cannot be intercepted by
/// WebKit). The path is percent-decoded once and must be a valid ``PackagePath``: traversal and
/// encoding tricks get a 404, never a file. A file the package lacks is ``Resolution/network(_:)``:
/// the caller fetches it from the origin.
public struct PackageResolver: Sendable {
    /// What to do with a request.
    public enum Resolution: Sendable {
        /// Answer with this response.
        case response(SchemeResponse)
        /// The package does not have it: fetch this URL (at the package's real origin) instead.
        case network(URL)
    }

    /// Files larger than this are streamed in chunks instead of read whole.
    static let streamThreshold = 1 << 20

    /// The installed version whose files are served.
    public let package: InstalledPackage
    /// The custom scheme the package is also served under (`"app"` for `app://m.example.com/app/`).
    public let customScheme: String?
    private let origin: URLComponents
    private let csp: String

    /// The sources the default policy adds to `connect-src` (``PackageSchemeHandler/connectSources``).
    public let connectSources: [String]

    /// - Parameters:
    ///   - package: the active version to serve.
    ///   - customScheme: a scheme accepted in place of the origin's (matched case-insensitively).
    ///   - connectSources: sources the documents' default policy adds to `connect-src`.
    public init(package: InstalledPackage, customScheme: String? = nil, connectSources: [String] = []) {
        self.package = package
        self.customScheme = customScheme?.lowercased()
        self.origin = URLComponents(string: package.manifest.origin) ?? URLComponents()
        self.connectSources = connectSources
        var policy = Self.defaultContentSecurityPolicy(origin: package.manifest.origin, connectSources: connectSources)
        // Two policies in one header are both enforced (CSP 3 §3.1): the manifest's can only tighten.
        if let extra = package.manifest.contentSecurityPolicy, !extra.isEmpty { policy += ", " + extra }
        self.csp = policy
    }

    /// The policy every package document gets: its own origin and inline code are allowed (as a
    /// packed H5 page expects), plugins, foreign framing and `<base>` hijacking are not; the
    /// bridge's byte channel (``ContainerSchemes/byteChannel``, and `connectSources`: its loopback
    /// endpoint where the engine serves it there) may be fetched.
    public static func defaultContentSecurityPolicy(origin: String, connectSources: [String] = []) -> String {
        let components = URLComponents(string: origin)
        let site = "\(components?.scheme ?? "https")://\(components?.host ?? "")" + (components?.port.map { ":\($0)" } ?? "")
        return "default-src 'self' \(site); script-src 'self' \(site) 'unsafe-inline'; style-src 'self' \(site) 'unsafe-inline'; "
            + "img-src 'self' \(site) data: blob: https:; media-src 'self' \(site) blob: https:; font-src 'self' \(site) data:; "
            + "connect-src 'self' \(site) https: wss: \(ContainerSchemes.byteChannel):\(connectSources.map { " " + $0 }.joined()); object-src 'none'; base-uri 'self'; frame-ancestors 'self'; form-action 'self' \(site)"
    }

    /// Resolves `request`.
    public func resolve(_ request: SchemeRequest) -> Resolution { resolve(request, keepingBytesIn: nil) }

    /// Resolves `request`, taking small files' bytes from `bytes` when they are there and keeping
    /// there those it reads.
    package func resolve(_ request: SchemeRequest, keepingBytesIn bytes: PackageByteCache?) -> Resolution {
        resolve(request, bytes: bytes, memoryOnly: false) ?? .response(Self.status(500))
    }

    /// Resolves `request` without touching the disk: `nil` when a file it would serve is not in
    /// `bytes` (the caller then resolves it off the main thread).
    package func resolveFromMemory(_ request: SchemeRequest, bytes: PackageByteCache) -> Resolution? {
        resolve(request, bytes: bytes, memoryOnly: true)
    }

    /// `nil` only with `memoryOnly`, for a file whose bytes `bytes` does not hold.
    private func resolve(_ request: SchemeRequest, bytes: PackageByteCache?, memoryOnly: Bool) -> Resolution? {
        guard let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) else { return .response(Self.status(400)) }
        guard matchesOrigin(components) else {
            // Served at its real origin (Blink intercepts every https request), another site's
            // request is that site's: it goes to the network as it is. Under the custom scheme, a
            // host that is not the package's is nobody's.
            let isWebScheme = ["http", "https"].contains(components.scheme?.lowercased() ?? "")
            return isWebScheme && components.scheme?.lowercased() != customScheme ? .network(request.url) : .response(Self.status(404))
        }
        let path = components.percentEncodedPath
        // The whole path must be clean, not just the part under the prefix: `/app%2f..%2fx` is a 404.
        if path.count > 1, (try? PackagePath(percentEncoded: String(path.dropFirst()))) == nil { return .response(Self.status(404)) }
        let prefix = origin.percentEncodedPath
        let remainder: String
        if path == String(prefix.dropLast()) || path == prefix {
            remainder = package.manifest.entry.value
        } else if path.hasPrefix(prefix) {
            let rest = String(path.dropFirst(prefix.count))
            remainder = rest.hasSuffix("/") ? rest + "index.html" : rest
        } else {
            return .network(networkURL(components))
        }
        guard let packagePath = try? PackagePath(percentEncoded: remainder) else { return .response(Self.status(404)) }
        let method = request.method.uppercased()
        guard method == "GET" || method == "HEAD" else { return .network(networkURL(components)) }

        // The file itself, then (a navigation of a single-page app) the entry page.
        let fallback = package.manifest.spaFallback && Self.isNavigation(request, path: packagePath) ? package.manifest.entry : nil
        for path in [packagePath, fallback].compactMap({ $0 }) {
            guard let file = package.manifest.file(at: path) else { continue }
            switch serve(file, request: request, head: method == "HEAD", bytes: bytes, memoryOnly: memoryOnly) {
            case .response(let response): return .response(response)
            case .notInMemory: return nil
            case .absent: continue
            }
        }
        return .network(networkURL(components))
    }

    // MARK: Internals

    private func matchesOrigin(_ components: URLComponents) -> Bool {
        guard let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased() else { return false }
        let originScheme = origin.scheme?.lowercased()
        guard host == origin.host?.lowercased() else { return false }
        if scheme == originScheme {
            let defaultPort = originScheme == "https" ? 443 : 80
            return (components.port ?? defaultPort) == (origin.port ?? defaultPort)
        }
        // Custom-scheme URLs usually carry no port; accept none, or the origin's own.
        return scheme == customScheme && (components.port == nil || components.port == origin.port)
    }

    private func networkURL(_ components: URLComponents) -> URL {
        var target = components
        target.scheme = origin.scheme
        target.fragment = nil
        return target.url ?? URL(string: package.manifest.origin)!
    }

    private static func isNavigation(_ request: SchemeRequest, path: PackagePath) -> Bool {
        if let accept = request.header("Accept"), accept.contains("text/html") { return true }
        return path.fileExtension.isEmpty
    }

    /// What serving one file gave.
    private enum Served {
        case response(SchemeResponse)
        /// Its blob is gone from the disk (collected or lost): the network answers instead.
        case absent
        /// Memory only, and its bytes are not there.
        case notInMemory
    }

    private func serve(_ file: PackageFile, request: SchemeRequest, head: Bool, bytes: PackageByteCache?, memoryOnly: Bool) -> Served {
        let url = package.contentsURL(of: file)
        // Bytes in memory are those of the blob as it is on disk now (its stamp is unchanged).
        let remembered = bytes?.bytes(of: file, at: url)
        if remembered == nil {
            if memoryOnly { return .notInMemory }
            guard FileManager.default.fileExists(atPath: url.path) else { return .absent }   // collected or lost: use the network
        }
        let etag = "\"\(file.sha256)\""
        var headers: [(name: String, value: String)] = [
            ("Content-Type", file.type), ("ETag", etag), ("Cache-Control", "no-cache"), ("Accept-Ranges", "bytes"),
            ("X-Content-Type-Options", "nosniff"),
        ]
        if PackageMediaTypes.isDocument(file.type) { headers.append(("Content-Security-Policy", csp)) }
        if let match = request.header("If-None-Match"), match.split(separator: ",").contains(where: {
            let tag = $0.trimmingCharacters(in: .whitespaces)
            return tag == etag || tag == "W/" + etag || tag == "*"
        }) {
            return .response(SchemeResponse(status: 304, headers: headers, body: .data(Data())))
        }
        var range = 0..<file.size
        var status = 200
        if let header = request.header("Range"), request.header("If-Range").map({ $0 == etag }) ?? true {
            switch ByteRange(header: header, length: file.size) {
            case .whole: break
            case .unsatisfiable:
                return .response(SchemeResponse(status: 416, headers: headers + [("Content-Range", "bytes */\(file.size)")], body: .data(Data())))
            case .partial(let requested):
                range = requested
                status = 206
                headers.append(("Content-Range", "bytes \(requested.lowerBound)-\(requested.upperBound - 1)/\(file.size)"))
            }
        }
        headers.append(("Content-Length", String(range.count)))
        if head { return .response(SchemeResponse(status: status, headers: headers, body: .data(Data()))) }
        if let remembered {
            return .response(SchemeResponse(status: status, headers: headers, body: .data(remembered.subdata(in: range))))
        }
        if range.count > Self.streamThreshold {
            return .response(SchemeResponse(status: status, headers: headers, body: .stream(Self.stream(url, range: range), length: Int64(range.count))))
        }
        let stamp = bytes == nil ? nil : FileStamp(url.path)   // before the read: a write during it changes the stamp
        guard let handle = try? FileHandle(forReadingFrom: url) else { return .absent }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: UInt64(range.lowerBound))) != nil,
              let data = try? handle.read(upToCount: range.count) ?? Data(), data.count == range.count else { return .absent }
        if let bytes, let stamp, range.count == file.size { bytes.keep(data, of: file, stamp: stamp) }
        return .response(SchemeResponse(status: status, headers: headers, body: .data(data)))
    }

    private static func stream(_ url: URL, range: Range<Int>) -> AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task.detached {
                do {
                    let handle = try FileHandle(forReadingFrom: url)
                    defer { try? handle.close() }
                    try handle.seek(toOffset: UInt64(range.lowerBound))
                    var remaining = range.count
                    while remaining > 0, !Task.isCancelled {
                        guard let chunk = try handle.read(upToCount: min(remaining, 256 << 10)), !chunk.isEmpty else {
                            throw HybridError.pkg(.corruptBlob(sha256: url.lastPathComponent, reason: "shorter than the manifest says"))
                        }
                        remaining -= chunk.count
                        continuation.yield(chunk)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private static func status(_ code: Int) -> SchemeResponse {
        SchemeResponse(status: code, contentType: "text/plain; charset=utf-8", data: Data("\(code)\n".utf8))
    }
}
