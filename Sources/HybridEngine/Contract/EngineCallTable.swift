import Foundation

/// The script calls and snapshots a view is waiting for. Each settles **exactly once**: with the
/// driver's answer, or earlier with ``failAll(_:)`` when the view closes or its content process
/// dies (the driver's late answer then finds nothing to settle).
///
/// A failure the driver reports waits ``EngineHeuristics/terminationGrace`` before it is
/// delivered, so that a termination reported meanwhile fails the call with its reason.
@MainActor
final class EngineCallTable {
    private var failures: [UInt64: @MainActor (any Error) -> Void] = [:]
    private var nextID: UInt64 = 0
    private let grace: TimeInterval

    package init(grace: TimeInterval = EngineHeuristics.terminationGrace) {
        self.grace = grace
    }

    /// Calls waiting now.
    package var count: Int { failures.count }

    /// Starts a call with `start` (which hands the driver its completion) and waits for it to settle.
    package func track<Value: Sendable>(
        _ start: (@escaping @MainActor @Sendable (Result<Value, any Error>) -> Void) -> Void
    ) async throws -> Value {
        nextID += 1
        let id = nextID
        return try await withCheckedThrowingContinuation { continuation in
            let call = SettleOnce(continuation)
            failures[id] = { error in call.settle(.failure(error)) }
            start { [weak self, grace] result in
                guard case .failure(let error) = result, grace > 0 else {
                    self?.failures[id] = nil
                    call.settle(result)
                    return
                }
                Task { @MainActor [weak self] in
                    try? await Task.sleep(nanoseconds: UInt64(grace * 1_000_000_000))
                    self?.failures[id] = nil
                    call.settle(.failure(error))
                }
            }
        }
    }

    /// Fails every waiting call with `error`, oldest first.
    package func failAll(_ error: any Error) {
        let waiting = failures
        failures.removeAll()
        for id in waiting.keys.sorted() { waiting[id]?(error) }
    }
}

/// A continuation resumed once; later results are ignored.
@MainActor
private final class SettleOnce<Value: Sendable> {
    private var continuation: CheckedContinuation<Value, any Error>?
    package init(_ continuation: CheckedContinuation<Value, any Error>) { self.continuation = continuation }
    package func settle(_ result: Result<Value, any Error>) {
        guard let continuation else { return }
        self.continuation = nil
        continuation.resume(with: result)
    }
}
