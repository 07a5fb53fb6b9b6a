import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A raw TCP server on 127.0.0.1 that answers every request with `behave(fd)`: a declared huge
/// `Content-Length`, an endless body, a trickle, or silence. Counts the body bytes it wrote.
final class MisbehavingServer: @unchecked Sendable {
    let port: Int
    private let fd: Int32
    private let written = Box(0)
    private let stopped = Box(false)

    /// What to send after the request head has been read; return to close the connection.
    convenience init(_ behave: @escaping @Sendable (_ send: (String) -> Bool, _ stopped: () -> Bool) -> Void) {
        self.init { _, send, stopped in behave(send, stopped) }
    }

    /// What to send once the request head (`head`, its text) has been read; return to close.
    init(answering behave: @escaping @Sendable (_ head: String, _ send: (String) -> Bool, _ stopped: () -> Bool) -> Void) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        listen(fd, 16)
        var bound = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = Int(UInt16(bigEndian: bound.sin_port))
        let behave = behave
        let listener = fd, written = written, stopped = stopped
        Thread.detachNewThread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                Thread.detachNewThread {
                    defer { close(client) }
                    var head = Data(), buffer = [UInt8](repeating: 0, count: 4096)
                    while head.range(of: Data("\r\n\r\n".utf8)) == nil {
                        let count = recv(client, &buffer, buffer.count, 0)
                        if count <= 0 { return }
                        head.append(contentsOf: buffer[0..<count])
                    }
                    behave(String(decoding: head, as: UTF8.self), { text in
                        let bytes = Array(text.utf8)
                        let sent = send(client, bytes, bytes.count, Int32(MSG_NOSIGNAL))
                        if sent > 0 { written.mutate { $0 += sent } }
                        return sent == bytes.count
                    }, { stopped.mutate { $0 } })
                }
            }
        }
    }

    /// Bytes written to clients so far, heads included.
    var bytesWritten: Int { written.mutate { $0 } }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    func stop() {
        stopped.mutate { $0 = true }
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    // MARK: Behaviours

    /// Declares `length` bytes and sends a few.
    static func declaring(_ length: Int64) -> MisbehavingServer {
        MisbehavingServer { send, stopped in
            _ = send("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n")
            while !stopped() && send(String(repeating: "x", count: 1024)) { usleep(10_000) }
        }
    }

    /// A chunked body that never ends, as fast as the client reads.
    static func endless() -> MisbehavingServer {
        MisbehavingServer { send, stopped in
            _ = send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = "10000\r\n" + String(repeating: "x", count: 65_536) + "\r\n"
            while !stopped() && send(chunk) {}
        }
    }

    /// A body of one byte every `interval` seconds that never ends.
    static func trickling(every interval: TimeInterval) -> MisbehavingServer {
        MisbehavingServer { send, stopped in
            _ = send("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n")
            while !stopped() && send("x") { usleep(UInt32(interval * 1_000_000)) }
        }
    }

    /// `/moved` redirects to `/final`, which answers `body` with a header `X-Final: yes`;
    /// anything else is a 404 with a body.
    static func redirecting(to body: String) -> MisbehavingServer {
        MisbehavingServer(answering: { head, send, _ in
            let path = head.split(separator: " ").dropFirst().first ?? ""
            switch path {
            case "/moved": _ = send("HTTP/1.1 302 Found\r\nLocation: /final\r\nContent-Length: 0\r\n\r\n")
            case "/final": _ = send("HTTP/1.1 200 OK\r\nX-Final: yes\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            default: _ = send("HTTP/1.1 404 Not Found\r\nContent-Length: 7\r\n\r\nmissing")
            }
        })
    }

    /// Reads the request and never answers.
    static func silent() -> MisbehavingServer {
        MisbehavingServer { _, stopped in
            while !stopped() { usleep(50_000) }
        }
    }
}

/// A value shared between server threads and a test, behind a lock.
final class Box<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    func mutate<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&stored) } }
}
