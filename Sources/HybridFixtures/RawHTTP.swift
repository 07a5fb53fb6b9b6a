import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Sends bytes no well-behaved client would send (malformed request lines, huge headers) over a
/// plain TCP socket to 127.0.0.1 and returns whatever the server answers.
public enum RawHTTP {
    /// Sends `request`, half-closes, and returns everything answered before the server closes or
    /// `timeout` passes; with `untilFirstResponse`, stops as soon as one whole response (head and
    /// `Content-Length` body) arrived, so a server that keeps the connection open is not waited out.
    /// `halfClose: false` keeps the sending side open: a server that takes the end of its input
    /// for a client that left (Chromium's DevTools endpoint, now and then) still answers.
    public static func exchange(port: Int, _ request: Data, timeout: Int = 5, untilFirstResponse: Bool = false,
                                halfClose: Bool = true) -> String {
        let fd = connectTo(port: port)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if halfClose { shutdown(fd, Int32(SHUT_WR)) }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
            if untilFirstResponse, isComplete(received) { break }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Sends `request` as UTF-8 text; see ``exchange(port:_:timeout:untilFirstResponse:halfClose:)``.
    public static func exchange(port: Int, _ request: String, untilFirstResponse: Bool = false, halfClose: Bool = true) -> String {
        exchange(port: port, Data(request.utf8), untilFirstResponse: untilFirstResponse, halfClose: halfClose)
    }

    /// Whether `bytes` hold one whole response (head and `Content-Length` body).
    public static func isComplete(_ bytes: Data) -> Bool {
        guard let end = bytes.range(of: Data("\r\n\r\n".utf8)) else { return false }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).lowercased()
        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        return bytes.count - end.upperBound >= length
    }

    /// A slow client: connects, sends `partial` and then nothing. Close the descriptor to hang up.
    public static func stall(port: Int, sending partial: String) -> Int32 {
        let fd = connectTo(port: port)
        if fd >= 0 { _ = partial.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) } }
        return fd
    }

    /// A connected TCP socket to 127.0.0.1:`port`, or -1.
    public static func connectTo(port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    /// The status code of the first response line, or `nil` when the server answered nothing.
    public static func status(of response: String) -> Int? {
        guard response.hasPrefix("HTTP/") else { return nil }
        return response.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }
}
