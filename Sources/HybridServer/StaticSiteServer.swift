#if canImport(CSoup)
import Foundation
import HybridBase

/// What `hybrid serve` runs: one directory — a package repository with its `config/`, or any
/// static site — served read-only by ``StaticFiles`` on a ``LoopbackServer``, with one access-log
/// line per request. Each file carries the `Cache-Control` a CDN needs for it
/// (``RepositoryCaching``: immutable blobs and manifests, short-lived pointers, rollouts and config).
///
/// Everything a HybridKit client fetches is a static file, so this server adds nothing a CDN or
/// nginx lacks; it is the embedded default, and tests run the same clients against both.
public final class StaticSiteServer: Sendable {
    /// The directory served.
    public let root: URL
    /// The underlying server (its port, its `url(_:)`).
    public let server: LoopbackServer

    /// Starts serving `root` on `host:port` (port 0 = any free port).
    /// - Parameters:
    ///   - host: the address to bind; loopback by default, so nothing is exposed by accident.
    ///   - accessLog: gets one line per request, timestamped, on the server thread.
    ///   - headerTimeout: seconds a client may take to send a request's headers, or stay idle
    ///     between keep-alive requests, before its connection is closed (nginx's
    ///     `client_header_timeout` and `keepalive_timeout` are 60 and 75 s).
    /// - Throws: `HybridError.network(.serverStartFailed)` when `root` is not a directory or the
    ///   address cannot be bound.
    public init(root: URL, host: String = "127.0.0.1", port: Int = 0, accessLog: (@Sendable (String) -> Void)? = nil,
                headerTimeout: Double = 60) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw HybridError.network(.serverStartFailed("\(root.path) is not a directory"))
        }
        self.root = root
        let sink = accessLog.map { log in { @Sendable (line: String) in log("\(HTTPDate.logTimestamp(Date())) \(line)") } }
        server = try LoopbackServer(host: host, port: port, accessLog: sink, headerTimeout: headerTimeout)
        var files = StaticFiles(root: root, prefix: "/")
        files.cacheControlForPath = RepositoryCaching.cacheControl(forPath:)
        let repository = files
        server.route("/") { request in Self.refusal(of: request) ?? repository.respond(to: request) }
    }

    /// The longest request target answered (nginx's default header buffer is 8 KB).
    public static let maximumTargetLength = 8 * 1024
    /// The largest header block answered.
    public static let maximumHeaderBytes = 16 * 1024

    /// 414 for an over-long request target, 431 for an over-large header block; `nil` otherwise.
    ///
    /// libsoup itself drops a connection whose header block passes 64 KB without answering; below
    /// that it hands everything on, so the limits a static server needs are enforced here, with
    /// the statuses RFC 9110 §15.5.15 and RFC 6585 §5 give them.
    static func refusal(of request: ServerRequest) -> ServerResponse? {
        if request.path.utf8.count + (request.rawQuery?.utf8.count ?? 0) > maximumTargetLength {
            return .text("414 URI too long\n", status: 414)
        }
        let headerBytes = request.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
        if headerBytes > maximumHeaderBytes {
            return ServerResponse.text("431 request header fields too large\n", status: 431).adding(header: "Connection", "close")
        }
        return nil
    }

    /// `http://HOST:PORT/`.
    public var url: URL { server.url("/") }

    /// Stops serving and waits for the server thread; in-flight connections are closed.
    public func stop() { server.stop() }
}
#endif
