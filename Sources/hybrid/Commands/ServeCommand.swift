import Foundation
import HybridCommandLine
import HybridCore
#if os(Linux)
import HybridServer
#endif

enum ServeCommand: HybridCommand {
    static let repo: CommandArgument<String> = .required("REPO", help: "the directory to serve")
    static let port: CommandOption<Int> = .int("--port", "N", default: 8080, in: 0...65_535, help: "the port; 0 picks a free one")
    static let host: CommandOption<String> = .text("--host", "HOST", default: "127.0.0.1",
                                                   help: "the address to bind to (anything but loopback lets other machines fetch the files)")
    static let headerTimeout: CommandOption<Double> = .double("--header-timeout", "SECONDS", default: 60,
        help: "close a connection that does not send its headers within this long, or idles this long between requests")
    static let quiet: CommandOption<Bool> = .flag("--quiet", help: "no access-log lines")

    static var table: CommandTable {
        CommandTable(
            name: "serve", summary: "Serve a package repository (and its config) or any static directory over HTTP",
            discussion: """
                Serves the directory REPO read-only: content types, ETag/If-None-Match → 304,
                Last-Modified, gzip for text when the client accepts it, single byte ranges (206/416),
                index.html for directories, and 404 for anything outside REPO (.., encoded dots and
                slashes, symbolic links leading out); 414/431 for request targets over 8 KB and header
                blocks over 16 KB; connections that do not send their headers within --header-timeout
                seconds, or idle that long between requests, are closed. One access-log line per request
                on standard output (--quiet turns it off). Binds to loopback unless --host says otherwise;
                --port 0 picks a free port. Prints the URL and then 'ready' once it accepts connections;
                SIGINT or SIGTERM close every connection and exit 0.

                Each file carries the Cache-Control a CDN needs: blobs, patches and manifests
                "public, max-age=31536000, immutable"; pointers, rollout documents, index.json, key
                rotations and config/ "public, max-age=60" (revalidated by ETag); anything else no-cache.
                Everything a HybridKit client fetches is a static file, so nginx or any CDN serves the
                same repository equally well (deploy/nginx, deploy/varnish; docs/offline-packages.md,
                "Serving at scale"); this is the embedded default.
                """,
            arguments: [repo], options: [port, host, headerTimeout, quiet])
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let repo = arguments[Self.repo]
        let port = arguments[Self.port]
        let host = arguments[Self.host]
        let quiet = arguments[Self.quiet]
        let headerTimeout = arguments[Self.headerTimeout]
        guard headerTimeout > 0 else {
            throw CommandLineError.invalid(option: "--header-timeout", value: "\(headerTimeout)", expected: "seconds above 0")
        }
        #if os(Linux)
        return try serve(root: URL(fileURLWithPath: repo), host: host, port: port, headerTimeout: headerTimeout, quiet: quiet)
        #else
        FileHandle.standardError.write(Data("hybrid serve: needs libsoup (Linux)\n".utf8))
        return 1
        #endif
    }

    #if os(Linux)
    private static func serve(root: URL, host: String, port: Int, headerTimeout: Double, quiet: Bool) throws -> Int32 {
        let output = LineWriter()
        let stop = StopSignal()
        var log: (@Sendable (String) -> Void)?
        if !quiet { log = { @Sendable line in output.write(line) } }
        FileHandle.standardError.write(Data("hybrid serve: starting on \(host):\(port == 0 ? "a free port" : String(port))…\n".utf8))
        let server = try StaticSiteServer(root: root, host: host, port: port, accessLog: log, headerTimeout: headerTimeout)
        output.write("serving \(server.root.path) at \(server.url.absoluteString)")
        if host != "127.0.0.1" && host != "::1" {
            output.write("warning: listening on \(host), not loopback: other machines can fetch these files")
        }
        output.write("ready")
        stop.wait()
        server.stop()
        output.write("stopped")
        return 0
    }
    #endif
}

#if os(Linux)
/// SIGINT and SIGTERM as a byte on a pipe (the self-pipe trick): the handler is installed
/// synchronously, before `ready` is printed, so a signal sent the moment a supervisor sees
/// `ready` is never lost — a dispatch signal source registers asynchronously, and until it has,
/// a signal would take its default action or, ignored, vanish. (`hybrid webdriver` stops on it too.)
struct StopSignal {
    init() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        stopPipe = (fds[0], fds[1])
        for number in [SIGINT, SIGTERM] {
            signal(number) { _ in
                var byte: UInt8 = 1
                _ = write(stopPipe.write, &byte, 1)   // async-signal-safe
            }
        }
    }

    /// Blocks until SIGINT or SIGTERM arrives.
    func wait() {
        var byte: UInt8 = 0
        while read(stopPipe.read, &byte, 1) < 0 && errno == EINTR {}
    }
}

/// The pipe the signal handler writes to; set once before the handlers are installed.
nonisolated(unsafe) private var stopPipe: (read: Int32, write: Int32) = (-1, -1)
#endif

/// Whole lines to standard output from any thread, flushed at once (a log reader or a test
/// waiting for `ready` must not wait for a buffer to fill).
private final class LineWriter: @unchecked Sendable {
    private let lock = NSLock()

    func write(_ line: String) {
        lock.withLock { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    }
}
