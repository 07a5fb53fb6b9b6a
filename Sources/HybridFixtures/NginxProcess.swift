#if canImport(HybridServer)  // loopback servers and ports: Linux, as HybridServer is
import HybridServer
import Foundation
import HybridCore
#if canImport(Glibc)
import Glibc
#endif

/// Debian's nginx serving a directory on a loopback port, as a child process: the reference a
/// static repository must work with unchanged (tests) and the yardstick for `hybrid serve`
/// (benchmarks). The config is written into a private prefix directory; nothing outside it is
/// touched, and ``stop()`` (or deinit) terminates the master, which takes its workers along.
public final class NginxProcess: @unchecked Sendable {
    /// Where Debian installs nginx.
    public static let executable = "/usr/sbin/nginx"

    /// Whether nginx is installed here.
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    /// The loopback port nginx listens on.
    public let port: Int
    /// The prefix directory holding the config, pid file, logs and temporary files.
    public let prefix: URL
    private let process: Process
    private let lock = NSLock()
    private var running = true

    /// Starts nginx serving `root` read-only and returns once it accepts connections.
    /// - Parameters:
    ///   - workers: worker processes; 1 compares fairly with a one-thread server.
    ///   - gzip: compress text types for clients that accept it, as `hybrid serve` does.
    ///   - locations: extra `location` blocks for the server (an upload sink for `bench data`).
    /// - Throws: `HybridError.network(.serverStartFailed)` when nginx is missing, exits, or does
    ///   not listen within a few seconds.
    public init(root: URL, workers: Int = 1, gzip: Bool = true, locations: String = "") throws {
        guard Self.isAvailable else { throw HybridError.network(.serverStartFailed("\(Self.executable) is not installed")) }
        let fm = FileManager.default
        prefix = fm.temporaryDirectory.appendingPathComponent("hk-nginx-\(UUID().uuidString)")
        try fm.createDirectory(at: prefix.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        port = try LoopbackPort.free()
        let config = prefix.appendingPathComponent("nginx.conf")
        try Data(Self.config(root: root.standardizedFileURL.path, prefix: prefix.path, port: port, workers: workers, gzip: gzip,
                                locations: locations).utf8)
            .write(to: config)
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["-c", config.path, "-p", prefix.path + "/", "-e", prefix.appendingPathComponent("error.log").path,
                             "-g", "daemon off;"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !Self.accepts(port: port) {
            guard process.isRunning, Date() < deadline else {
                let log = (try? String(contentsOf: prefix.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                stop()
                throw HybridError.network(.serverStartFailed("nginx did not start: \(log.suffix(400))"))
            }
            usleep(20_000)
        }
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT/path`.
    public func url(_ path: String = "/") -> URL {
        URL(string: "http://127.0.0.1:\(port)" + (path.hasPrefix("/") ? path : "/" + path))!
    }

    /// Terminates nginx (SIGTERM: fast shutdown of master and workers), waits, removes the prefix.
    public func stop() {
        let wasRunning = lock.withLock {
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: prefix)
    }

    static func config(root: String, prefix: String, port: Int, workers: Int, gzip: Bool, locations: String = "") -> String {
        // As root, nginx would switch its workers to `nobody`, who may not read a test's files.
        let user = geteuid() == 0 ? "user root;\n" : ""
        return """
            \(user)worker_processes \(max(1, workers));
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/error.log warn;
            events { worker_connections 4096; }
            http {
                include /etc/nginx/mime.types;
                default_type application/octet-stream;
                access_log off;
                sendfile on;
                tcp_nopush on;
                keepalive_requests 100000;
                client_body_temp_path \(prefix)/tmp/body;
                proxy_temp_path \(prefix)/tmp/proxy;
                fastcgi_temp_path \(prefix)/tmp/fastcgi;
                uwsgi_temp_path \(prefix)/tmp/uwsgi;
                scgi_temp_path \(prefix)/tmp/scgi;
                gzip \(gzip ? "on" : "off");
                gzip_types text/css application/javascript application/json image/svg+xml text/plain;
                server {
                    listen 127.0.0.1:\(port);
                    root \(root);
                    location / { }
                    \(locations)
                }
            }

            """
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
#endif
