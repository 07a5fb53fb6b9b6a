import Foundation
import HybridFixtures
import HybridCore
import HybridServer
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A served directory with a secret file beside it (outside the root) and a symbolic link
/// inside the root that points at the secret.
final class ServedSite: @unchecked Sendable {
    let directory: URL
    let server: StaticSiteServer
    private let lock = NSLock()
    private var lines: [String] = []
    static let secret = "TOP-SECRET-OUTSIDE-THE-ROOT"

    init(headerTimeout: Double = 60) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-serve-\(UUID().uuidString)")
        let root = directory.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data(Self.secret.utf8).write(to: directory.appendingPathComponent("secret.txt"))
        try Data(String(repeating: "0123456789", count: 100).utf8).write(to: root.appendingPathComponent("data.txt"))
        try Data(String(repeating: "<p>big</p>", count: 200_000).utf8).write(to: root.appendingPathComponent("big.html"))
        try Data("sub".utf8).write(to: root.appendingPathComponent("sub/index.html"))
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("link.txt").path,
                                                   withDestinationPath: directory.appendingPathComponent("secret.txt").path)
        let box = LogBox()
        server = try StaticSiteServer(root: root, accessLog: { box.append($0) }, headerTimeout: headerTimeout)
        logBox = box
    }

    private let logBox: LogBox
    var log: [String] { logBox.lines }
    var port: Int { server.server.port }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    func stillServes() async throws -> Bool {
        try await fetch(server.url.appendingPathComponent("data.txt")).status == 200
    }
}

final class LogBox: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func append(_ line: String) { lock.withLock { items.append(line) } }
    var lines: [String] { lock.withLock { items } }
}

@Suite("hybrid serve against hostile and broken clients", .serialized)
struct ServeHostileTests {
    /// Whether the server still holds `fd`'s connection open (data waiting or nothing yet, but
    /// no end of stream), without blocking.
    static func isOpen(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count > 0 || (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
    }

    @Test func badRangesGet416AndOddOnesTheWholeFile() async throws {
        let site = try ServedSite()
        let url = site.server.url.appendingPathComponent("data.txt")
        for range in ["bytes=abc", "bytes=5-2", "bytes=1000-", "bytes=-0", "bytes=--1", "bytes=99999999999999999999-",
                      "bytes 0-1", "bytes=0-1;x"] {
            let reply = try await fetch(url, headers: ["Range": range])
            #expect(reply.status == 416, "\(range) → \(reply.status)")
            #expect((reply.headers["Content-Range"] as? String) == "bytes */1000")
        }
        // Another unit is ignored; several ranges may be ignored or answered as multipart.
        let other = try await fetch(url, headers: ["Range": "items=0-1"])
        #expect(other.status == 200 && other.body.count == 1000)
        let several = try await fetch(url, headers: ["Range": "bytes=0-1,5-6"])
        #expect(several.status == 200 || several.status == 206, "several ranges → \(several.status)")
        #expect(try await fetch(url, headers: ["Range": "bytes=-10"]).body == Data("0123456789".utf8))
        #expect(try await site.stillServes())
    }

    @Test func traversalNeverReachesOutsideTheRoot() async throws {
        let site = try ServedSite()
        let attempts = [
            "/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/..%2fsecret.txt", "/sub/..%2f..%2fsecret.txt",
            "/%252e%252e/secret.txt", "/sub/%2e%2e/%2e%2e/secret.txt", "/..%5csecret.txt", "/.%2e/secret.txt",
            "/sub/../../secret.txt", "/link.txt", "/%00", "/data.txt%00.html", "//secret.txt", "/./../secret.txt",
        ]
        for path in attempts {
            let port = site.port
            let response = try await offPool { RawHTTP.exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", untilFirstResponse: true) }
            let status = RawHTTP.status(of: response)
            #expect(status.map { (400...499).contains($0) } == true, "\(path) → \(String(describing: status))")
            #expect(!response.contains(ServedSite.secret), "\(path) leaked the secret")
        }
        #expect(try await site.stillServes())
    }

    @Test func hugeAndManyHeadersAreRefusedAndTheServerGoesOn() async throws {
        let site = try ServedSite()
        let refused = [
            ("GET /data.txt HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 20_000))\r\n\r\n", 431),
            ("GET /data.txt HTTP/1.1\r\nHost: x\r\n" + (0..<2_000).map { "X-H\($0): v\r\n" }.joined() + "\r\n", 431),
            ("GET /\(String(repeating: "a", count: 10_000)) HTTP/1.1\r\nHost: x\r\n\r\n", 414),
            ("GET /data.txt?\(String(repeating: "q", count: 10_000)) HTTP/1.1\r\nHost: x\r\n\r\n", 414),
        ]
        for (request, expected) in refused {
            let port = site.port
            let status = RawHTTP.status(of: try await offPool { RawHTTP.exchange(port: port, request, untilFirstResponse: true) })
            #expect(status == expected, "\(request.prefix(30)) → \(String(describing: status))")
            #expect(try await site.stillServes())
        }
        // Past 64 KB libsoup drops the connection itself, before any handler runs: no answer,
        // never the file, and the server goes on.
        for request in ["GET /data.txt HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 300_000))\r\n\r\n",
                        "GET /data.txt HTTP/1.1\r\nHost: x\r\n" + (0..<20_000).map { "X-H\($0): v\r\n" }.joined() + "\r\n"] {
            let port = site.port
            let status = RawHTTP.status(of: try await offPool { RawHTTP.exchange(port: port, request, untilFirstResponse: true) })
            #expect(status.map { (400...499).contains($0) } ?? true, "\(request.prefix(30)) → \(String(describing: status))")
            #expect(try await site.stillServes())
        }
    }

    @Test func garbageRequestsGet4xx() async throws {
        let site = try ServedSite()
        for request in ["GARBAGE\r\n\r\n", "GET\r\n\r\n", "GET /data.txt HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
                        "POST /data.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc", "DELETE /data.txt HTTP/1.1\r\nHost: x\r\n\r\n",
                        "GET /data.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"] {
            let port = site.port
            let status = RawHTTP.status(of: try await offPool { RawHTTP.exchange(port: port, request, untilFirstResponse: true) })
            #expect(status.map { (400...499).contains($0) } == true, "\(request.prefix(40)) → \(String(describing: status))")
        }
        #expect(try await site.stillServes())
    }

    @Test func slowClientsDoNotHoldUpOthers() async throws {
        let site = try ServedSite()
        var stalled: [Int32] = []
        defer { stalled.forEach { close($0) } }
        for index in 0..<60 {
            let fd = RawHTTP.connectTo(port: site.port)
            #expect(fd >= 0)
            // Half a request line, half a header block, or a big download never read.
            let partial = ["GET /data.t", "GET /data.txt HTTP/1.1\r\nHost: x\r\nX-Slow:", "GET /big.html HTTP/1.1\r\nHost: x\r\n\r\n"][index % 3]
            _ = partial.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            stalled.append(fd)
        }
        for _ in 0..<20 { #expect(try await site.stillServes()) }
        // The order, not a time: all twenty were served while every stalled client was still
        // connected (the server had not hung up on them to make room).
        #expect(stalled.filter { !Self.isOpen($0) }.isEmpty)
        stalled.forEach { close($0) }
        stalled.removeAll()
        #expect(try await site.stillServes())
    }

    @Test func lastModifiedIsAnIMFFixdateEvenUnderAnotherLocale() async throws {
        let site = try ServedSite()
        let file = site.server.root.appendingPathComponent("data.txt")
        let modified = Date(timeIntervalSince1970: 1_790_000_123.75)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: file.path)
        setlocale(LC_ALL, "de_DE.UTF-8")   // what a GTK app may do; day and month names must stay English
        defer { setlocale(LC_ALL, "C") }
        let reply = try await fetch(site.server.url.appendingPathComponent("data.txt"))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(reply.headers["Last-Modified"] as? String == formatter.string(from: Date(timeIntervalSince1970: 1_790_000_123)))
        #expect(site.log.last?.range(of: #"^\[\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d \+0000\] "#, options: .regularExpression) != nil)
    }

    @Test func silentAndTricklingClientsAreHungUpOnAfterTheHeaderTimeout() async throws {
        let site = try ServedSite(headerTimeout: 0.5)
        let port = site.port
        let outcomes = try await offPool { () -> [String] in
            // Silent; half a header block; one whole request, then idle on the kept-alive connection.
            let sends = ["", "GET /data.txt HTTP/1.1\r\nHost: x\r\nX-Slow: a", "GET /data.txt HTTP/1.1\r\nHost: x\r\n\r\n"]
            let sockets = sends.map { text -> Int32 in
                let fd = RawHTTP.connectTo(port: port)
                if !text.isEmpty { _ = text.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) } }
                var wait = timeval(tv_sec: 5, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
                return fd
            }
            defer { sockets.forEach { close($0) } }
            // Who ended each connection, not when: the server (end of stream) or our own 5 s
            // receive timeout (EAGAIN), which only a server that never hangs up lets expire.
            return sockets.map { fd in
                var received = Data()
                var buffer = [UInt8](repeating: 0, count: 65_536)
                var count = 0
                repeat {
                    count = recv(fd, &buffer, buffer.count, 0)
                    if count > 0 { received.append(contentsOf: buffer[0..<count]) }
                } while count > 0
                let status = RawHTTP.status(of: String(decoding: received, as: UTF8.self)).map(String.init) ?? "none"
                return "\(status) closed \(count == 0 ? "by the server" : "by our receive timeout (errno \(errno))")"
            }
        }
        #expect(outcomes == ["none closed by the server", "none closed by the server", "200 closed by the server"])
        #expect(try await site.stillServes())
    }

    @Test func everyRequestGetsOneAccessLogLine() async throws {
        let site = try ServedSite()
        for path in ["data.txt", "missing", "sub/"] { _ = try await fetch(site.server.url.appendingPathComponent(path)) }
        let lines = site.log
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix("[") == true)
        #expect(lines.contains { $0.contains("\"GET /data.txt\" 200 ") })
        #expect(lines.contains { $0.contains("\"GET /missing\" 404") })
    }

    @Test func hybridServeStartsPrintsReadyAndStopsCleanlyOnSignals() async throws {
        let binary = try HybridTool.built().binary
        let site = try ServedSite()
        let root = site.server.root
        let outcomes = try await offPool { () throws -> [(Int32, Int32, Process.TerminationReason, String)] in
            var outcomes: [(Int32, Int32, Process.TerminationReason, String)] = []
            for signal in [SIGINT, SIGTERM] {
                let process = Process()
                process.executableURL = binary
                process.arguments = ["serve", root.path, "--port", "0"]
                let output = Pipe()
                process.standardOutput = output
                let exited = DispatchSemaphore(value: 0)
                process.terminationHandler = { _ in exited.signal() }
                try process.run()
                var text = ""
                let deadline = Date().addingTimeInterval(10)
                while !text.contains("ready\n"), Date() < deadline, process.isRunning {
                    text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
                }
                kill(process.processIdentifier, signal)
                // Never hang the suite on a server that ignores the signal: kill it and fail.
                if exited.wait(timeout: .now() + 10) == .timedOut { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
                text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                outcomes.append((signal, process.terminationStatus, process.terminationReason, text))
            }
            return outcomes
        }
        for (signal, status, reason, text) in outcomes {
            #expect(text.contains("serving ") && text.contains("http://127.0.0.1:"), "signal \(signal)")
            #expect(text.contains("ready\n"))
            #expect(reason == .exit && status == 0, "signal \(signal)")
            #expect(text.hasSuffix("stopped\n"))
        }
    }
}
