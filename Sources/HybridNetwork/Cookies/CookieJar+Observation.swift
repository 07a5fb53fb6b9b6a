import Foundation
import HybridEngine

extension CookieJar {
    /// One change to the jar.
    public enum Change: Sendable, Hashable {
        /// A cookie was added or its value or attributes changed.
        case stored(Cookie)
        /// A cookie was deleted, replaced by an expired one, or evicted on expiry.
        case removed(Cookie)

        /// The cookie the change is about.
        public var cookie: Cookie {
            switch self {
            case .stored(let cookie), .removed(let cookie): cookie
            }
        }
    }

    /// Calls `handler` for every change, after the change, on the thread that made it.
    /// - Returns: a token; the handler is called until the token is cancelled or released.
    public func observe(_ handler: @escaping @Sendable (Change) -> Void) -> CookieJarObservation {
        let id = lock.withLock {
            defer { nextObserver += 1 }
            observers[nextObserver] = handler
            return nextObserver
        }
        return CookieJarObservation { [weak self] in
            guard let self else { return }
            _ = self.lock.withLock { self.observers.removeValue(forKey: id) }
        }
    }

    /// Tells observers about `changes` and writes the jar through to its file. Lock not held.
    func publish(_ changes: [Change]) {
        guard !changes.isEmpty else { return }
        if fileURL != nil { try? save() }
        let handlers = lock.withLock { observers.sorted { $0.key < $1.key }.map(\.value) }
        for change in changes {
            for handler in handlers { handler(change) }
        }
    }
}

/// Keeps a ``CookieJar`` observation alive; cancel it (or release it) to stop.
public final class CookieJarObservation: @unchecked Sendable {
    private let lock = NSLock()
    private var onCancel: (@Sendable () -> Void)?

    init(_ onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }

    /// Stops the observation. Idempotent.
    public func cancel() {
        let action = lock.withLock {
            defer { onCancel = nil }
            return onCancel
        }
        action?()
    }

    deinit { cancel() }
}
