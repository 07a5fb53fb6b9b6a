import Foundation
import HybridFixtures
#if canImport(Glibc)
import Glibc
#endif

/// A closed-loop HTTP/1.1 load generator: `clients` threads, each with one keep-alive
/// connection (opened, and used once, before the clock starts), each sending
/// `requestsPerClient` GETs one after another and reading every response whole (status line,
/// headers, `Content-Length` body); a connection the server closes is reopened and timed. Raw sockets and one thread per
/// client keep the client's own cost small and predictable next to the servers it measures.
struct ServeLoad: Sendable {
    var port: Int
    var paths: [String]
    var clients: Int
    var requestsPerClient: Int
    /// Requests not done by then count as errors: the run is bounded whatever the server does.
    var timeLimit: TimeInterval

    struct Result: Sendable {
        var requests = 0
        var errors = 0
        var seconds = 0.0
        var bytes = 0
        /// Sorted latencies of successful requests, in milliseconds.
        var latencies: [Double] = []

        var requestsPerSecond: Double { seconds > 0 ? Double(requests - errors) / seconds : 0 }

        func percentile(_ p: Double) -> Double {
            guard !latencies.isEmpty else { return 0 }
            return latencies[min(latencies.count - 1, Int((Double(latencies.count) * p).rounded(.up)) - 1)]
        }
    }

    /// Runs the load on its own threads and returns when every client is done (blocking).
    func run() -> Result {
        let results = ResultsBox(count: clients)
        let ready = DispatchGroup(), done = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        let deadline = Self.now() + timeLimit
        for index in 0..<clients {
            ready.enter()
            done.enter()
            let thread = Thread { [self] in
                // Connect and complete one request before the clock starts, so the measurement is
                // of serving, not of how fast a server drains a burst of 200 handshakes.
                let connection = HTTPConnection(port: port)
                _ = connection?.get(paths[index % paths.count])
                ready.leave()
                go.wait()
                results.set(index, client(index: index, connection: connection, deadline: deadline))
                done.leave()
            }
            thread.stackSize = 256 << 10
            thread.start()
        }
        ready.wait()
        let start = Self.now()
        for _ in 0..<clients { go.signal() }
        done.wait()
        var total = Result()
        total.seconds = Self.now() - start
        for result in results.all {
            total.requests += result.requests
            total.errors += result.errors
            total.bytes += result.bytes
            total.latencies += result.latencies
        }
        total.latencies.sort()
        return total
    }

    private func client(index: Int, connection: HTTPConnection?, deadline: Double) -> Result {
        var result = Result()
        var connection = connection
        for request in 0..<requestsPerClient {
            result.requests += 1
            guard Self.now() < deadline else {
                result.errors += 1
                continue
            }
            let path = paths[(index + request) % paths.count]
            if connection == nil { connection = HTTPConnection(port: port) }
            let began = Self.now()
            if let bytes = connection?.get(path), bytes >= 0 {
                result.latencies.append((Self.now() - began) * 1000)
                result.bytes += bytes
                if connection?.isClosed == true { connection = nil }
            } else {
                result.errors += 1
                connection = nil
            }
        }
        return result
    }

    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

/// Each client writes its own slot; read once every client has finished.
private final class ResultsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [ServeLoad.Result]
    init(count: Int) { results = Array(repeating: .init(), count: count) }
    func set(_ index: Int, _ result: ServeLoad.Result) { lock.withLock { results[index] = result } }
    var all: [ServeLoad.Result] { lock.withLock { results } }
}

/// One keep-alive connection to 127.0.0.1, blocking, with a receive timeout.
private final class HTTPConnection {
    private let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 128 << 10)
    private var pending: [UInt8] = []
    private(set) var isClosed = false

    init?(port: Int) {
        fd = RawHTTP.connectTo(port: port)
        guard fd >= 0 else { return nil }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var wait = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// GETs `path`; returns the body size for a 200, or `nil` on any error or other status.
    func get(_ path: String) -> Int? {
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: hybrid-bench\r\n\r\n"
        let sent = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        guard sent == request.utf8.count else { return nil }
        // Headers: read until the blank line.
        var headerEnd: Int?
        while headerEnd == nil {
            headerEnd = Self.find(pending)
            if headerEnd == nil { guard fill() else { return nil } }
        }
        guard let end = headerEnd else { return nil }
        let head = String(decoding: pending[0..<end], as: UTF8.self).lowercased()
        pending.removeFirst(end + 4)
        guard head.hasPrefix("http/1.1 200") else { return nil }
        var length = 0
        for line in head.split(separator: "\r\n") {
            if line.hasPrefix("content-length:") { length = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? -1 }
            if line.hasPrefix("connection:") && line.contains("close") { isClosed = true }
        }
        guard length >= 0 else { return nil }
        while pending.count < length { guard fill() else { return nil } }
        pending.removeFirst(length)
        return length
    }

    private func fill() -> Bool {
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return false }
        pending.append(contentsOf: buffer[0..<count])
        return true
    }

    /// The offset of `\r\n\r\n`, if present.
    private static func find(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}
