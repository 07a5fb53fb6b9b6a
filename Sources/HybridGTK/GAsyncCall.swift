import CHybridGTK
import CWebKitGTK
import HybridCore

/// One pending GAsync operation bridged to a checked continuation, resumed **exactly once**:
/// by its C callback, or earlier by ``fail(_:)`` when the view closes or its content process dies
/// (a late callback then finds nothing to resume).
@MainActor
final class GAsyncCall<Value: Sendable> {
    private var continuation: CheckedContinuation<Value, any Error>?
    private let finish: @MainActor (OpaquePointer) throws -> Value
    var onSettled: (@MainActor () -> Void)?

    init(finish: @escaping @MainActor (OpaquePointer) throws -> Value) {
        self.finish = finish
    }

    func fail(_ error: any Error) { settle(.failure(error)) }

    /// How long a failure waits before it is delivered (see ``complete(_:)``).
    var failureGrace: UInt32 = 0

    fileprivate func complete(_ result: OpaquePointer) {
        guard continuation != nil else { return }
        let outcome: Result<Value, any Error>
        do { outcome = .success(try finish(result)) } catch { outcome = .failure(error) }
        if case .failure(let error) = outcome, failureGrace > 0 {
            // When the content process dies, WebKit fails pending script calls with a generic
            // error *before* it emits web-process-terminated. Waiting a moment lets that signal
            // fail the call first, with the reason a caller can act on.
            let box = Unmanaged.passRetained(DeferredFailure { [weak self] in self?.fail(error) }).toOpaque()
            g_timeout_add_full(G_PRIORITY_DEFAULT, failureGrace, deferredFailureTrampoline, box, nil)
            return
        }
        settle(outcome)
    }

    private func settle(_ outcome: Result<Value, any Error>) {
        guard let continuation else { return }
        self.continuation = nil
        continuation.resume(with: outcome)
        onSettled?()
    }

    /// Starts the operation with a C callback and user data, then suspends until it settles.
    func start(_ begin: (GAsyncReadyCallback, gpointer) -> Void) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            self.continuation = continuation
            // The callback owns one retain until it runs (GIO always calls it exactly once).
            let data = Unmanaged.passRetained(self).toOpaque()
            begin(gAsyncTrampoline, data)
        }
    }
}

/// GIO calls every ready-callback exactly once, on the thread-default main context (ours).
private let gAsyncTrampoline: GAsyncReadyCallback = { _, result, data in
    guard let data, let result else { return }
    onMain((data, result)) { data, result in
        let call = Unmanaged<AnyObject>.fromOpaque(data).takeRetainedValue()
        (call as? any GAsyncCompleting)?.completeErased(result)
    }
}

@MainActor
private protocol GAsyncCompleting: AnyObject {
    func completeErased(_ result: OpaquePointer)
}

extension GAsyncCall: GAsyncCompleting {
    fileprivate func completeErased(_ result: OpaquePointer) { complete(result) }
}

private final class DeferredFailure {
    let deliver: @MainActor () -> Void
    init(_ deliver: @escaping @MainActor () -> Void) { self.deliver = deliver }
}

private let deferredFailureTrampoline: GSourceFunc = { data in
    guard let data else { return 0 }
    onMain(data) { data in
        Unmanaged<DeferredFailure>.fromOpaque(data).takeRetainedValue().deliver()
    }
    return 0  // G_SOURCE_REMOVE
}
