import Foundation
import Glibc
import HybridBase

/// Loopback ports for processes a tool starts itself (nginx, an engine's inspector).
public enum LoopbackPort {
    /// A port on 127.0.0.1 nothing listens on right now (bound to 0, read back, closed). Another
    /// process may take it before the caller does; callers start their server at once.
    /// - Throws: ``NetworkFailure/serverStartFailed(_:)`` when no socket can be bound.
    public static func free() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HybridError.network(.serverStartFailed("socket() failed")) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw HybridError.network(.serverStartFailed("cannot find a free port")) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
