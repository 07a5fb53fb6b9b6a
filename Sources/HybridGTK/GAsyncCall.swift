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

    func fail(_ error: any Error) {
        guard let continuation else { return }
        self.continuation = nil
        continuation.resume(throwing: error)
        onSettled?()
    }

    fileprivate func complete(_ result: OpaquePointer) {
        guard let continuation else { return }
        self.continuation = nil
        do { continuation.resume(returning: try finish(result)) } catch { continuation.resume(throwing: error) }
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
