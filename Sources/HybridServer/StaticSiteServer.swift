#if canImport(CWebKitGTK)
import Foundation
import HybridCore

/// What `hybrid serve` runs: one directory — a package repository with its `config/`, or any
/// static site — served read-only by ``StaticFiles`` on a ``LoopbackServer``, with one access-log
/// line per request.
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
    /// - Throws: `HybridError.network(.serverStartFailed)` when `root` is not a directory or the
    ///   address cannot be bound.
    public init(root: URL, host: String = "127.0.0.1", port: Int = 0, accessLog: (@Sendable (String) -> Void)? = nil) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw HybridError.network(.serverStartFailed("\(root.path) is not a directory"))
        }
        self.root = root
        let sink = accessLog.map { log in { @Sendable (line: String) in log("\(Self.timestamp()) \(line)") } }
        server = try LoopbackServer(host: host, port: port, accessLog: sink)
        server.serveDirectory(root, at: "/")
    }

    /// `http://HOST:PORT/`.
    public var url: URL { server.url("/") }

    /// Stops serving and waits for the server thread; in-flight connections are closed.
    public func stop() { server.stop() }

    /// `[30/Nov/2026:10:56:54 +0000]`, as common-log-format readers expect; built with
    /// `strftime` because a `DateFormatter` per request would cost more than serving a small file.
    static func timestamp(_ date: Date = Date()) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 40)
        let count = strftime(&buffer, buffer.count, "[%d/%b/%Y:%H:%M:%S +0000]", &parts)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
#endif
