import Foundation

/// A value shared between a server thread and a test, behind a lock.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    public init(_ value: Value) { stored = value }
    public var value: Value { lock.withLock { stored } }
    public func set(_ value: Value) { lock.withLock { stored = value } }
    public func mutate<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&stored) } }
}
