import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Bytes no well-behaved client sends, over a plain TCP socket to 127.0.0.1.
enum RawSocket {
    /// Sends `request`, half-closes, and returns everything answered before close or timeout.
    static func exchange(port: Int, _ request: Data, timeout: Int = 5) -> String {
        let fd = open(port: port)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        shutdown(fd, Int32(SHUT_WR))
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
            if isComplete(received) { break }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Whether `bytes` hold one whole response (head and `Content-Length` body): a server that
    /// keeps the connection open after answering need not be waited out.
    static func isComplete(_ bytes: Data) -> Bool {
        guard let end = bytes.range(of: Data("\r\n\r\n".utf8)) else { return false }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).lowercased()
        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        return bytes.count - end.upperBound >= length
    }

    static func exchange(port: Int, _ request: String) -> String { exchange(port: port, Data(request.utf8)) }

    /// A connected socket, or -1.
    static func open(port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if connected != 0 {
            close(fd)
            return -1
        }
        return fd
    }

    /// The status of the first response line, or `nil` when nothing was answered.
    static func status(of response: String) -> Int? {
        guard response.hasPrefix("HTTP/") else { return nil }
        return response.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }
}

/// Runs blocking work (raw sockets, child processes, nginx start-up) on a thread of its own.
/// On two cores Swift's cooperative pool has two threads: a test blocking them stalls every
/// other suite running in parallel, and their timing assertions fail.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
