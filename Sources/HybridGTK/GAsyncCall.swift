import CHybridGTK
import CWebKitGTK
import HybridCore

/// One GAsync operation: GIO calls its ready-callback exactly once, and `completion` gets the
/// finished value or its error exactly once. Keeping calls that outlive a view's close or its
/// content process is the engine contract's business (``ContractEngine``), not this one's.
@MainActor
final class GAsyncCall<Value: Sendable> {
    private let finish: @MainActor (OpaquePointer) throws -> Value
    private var completion: (@MainActor (Result<Value, any Error>) -> Void)?

    init(finish: @escaping @MainActor (OpaquePointer) throws -> Value,
         completion: @escaping @MainActor (Result<Value, any Error>) -> Void) {
        self.finish = finish
        self.completion = completion
    }

    /// Starts the operation with a C callback and user data; the callback owns one retain until it runs.
    func start(_ begin: (GAsyncReadyCallback, gpointer) -> Void) {
        begin(gAsyncTrampoline, Unmanaged.passRetained(self).toOpaque())
    }

    fileprivate func complete(_ result: OpaquePointer) {
        guard let completion else { return }
        self.completion = nil
        do { completion(.success(try finish(result))) } catch { completion(.failure(error)) }
    }

    /// Starts the operation and suspends until it finishes.
    static func run(finish: @escaping @MainActor (OpaquePointer) throws -> Value,
                    _ begin: (GAsyncReadyCallback, gpointer) -> Void) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            GAsyncCall(finish: finish) { continuation.resume(with: $0) }.start(begin)
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
