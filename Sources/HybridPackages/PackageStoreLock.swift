import Foundation
import HybridBase

extension PackageStore {
    /// Runs `body` holding the store's exclusive `flock`.
    ///
    /// `flock` locks belong to an open file description, so two installers conflict whether they
    /// are in two processes or two tasks of one process, and the kernel drops the lock when a
    /// process dies, so a crash never leaves the store locked. The lock is polled (`LOCK_NB`)
    /// rather than blocked on, to honour ``Config/lockTimeout``.
    /// - Throws: ``PackageFailure/storeBusy(_:)`` on timeout, or what `body` throws.
    package func withLock<T>(_ body: () throws -> T) throws -> T {
        try createDirectory(root)
        let fd = open(lockURL.path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw HybridError.pkg(.writeFailed(path: lockURL.path, message: String(cString: strerror(errno))))
        }
        defer { close(fd) }
        let deadline = Date().addingTimeInterval(config.lockTimeout)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw HybridError.pkg(.writeFailed(path: lockURL.path, message: String(cString: strerror(errno))))
            }
            guard Date() < deadline else { throw HybridError.pkg(.storeBusy(root.path)) }
            usleep(2_000)
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
