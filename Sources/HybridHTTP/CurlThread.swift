#if canImport(CHybridCurl)
import CHybridCurl
import Foundation
import HybridBase

/// What ``CurlStream`` and ``CurlExchange`` share: a blocking libcurl transfer run on a thread of
/// its own, and the shim's units and messages.
enum CurlThread {
    /// Runs `body` on a new thread named `name` and returns (or throws) what it did; cancelling the
    /// calling task calls `cancel`, which the transfer notices at its next tick.
    static func run(_ name: String, cancel: @escaping @Sendable () -> Void,
                    _ body: @escaping @Sendable () throws -> Void) async throws {
        // The thread's end is handed over under a lock, not only through the continuation: the
        // caller reads what the callbacks wrote on that thread, and ThreadSanitizer does not see a
        // continuation resumed from a thread of our own as ordering the two (docs/sanitizers.md).
        let outcome = LockedState<Result<Void, any Error>>(.success(()))
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let thread = Thread {
                    let result = Result { try body() }
                    outcome.withLock { $0 = result }
                    continuation.resume()
                }
                thread.name = name
                thread.start()
            }
        } onCancel: {
            cancel()
        }
        try outcome.withLock { $0 }.get()
    }

    /// Seconds as the shim's milliseconds, rounded up and capped.
    static func milliseconds(_ seconds: TimeInterval) -> Int {
        Int(min(seconds * 1000, Double(Int32.max)).rounded(.up))
    }

    /// libcurl's message for a failed transfer.
    static func message(_ result: hk_curl_result) -> String {
        withUnsafeBytes(of: result.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
#endif
