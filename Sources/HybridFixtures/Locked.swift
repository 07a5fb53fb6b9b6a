import Foundation

/// A value shared between a server thread and a test, behind a lock.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    /// Wraps `value`.
    public init(_ value: Value) { stored = value }
    /// A copy of the value now.
    public var value: Value { lock.withLock { stored } }
    /// Replaces the value.
    public func set(_ value: Value) { lock.withLock { stored = value } }
    /// Changes the value in place under the lock and returns what `body` returns.
    public func mutate<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&stored) } }
}
