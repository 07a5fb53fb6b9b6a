import Foundation

/// Runs blocking work (raw sockets, child processes, nginx start-up) on a thread of its own.
/// On two cores Swift's cooperative pool has two threads: a test blocking them stalls every
/// other suite running in parallel, and their timing assertions fail.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
