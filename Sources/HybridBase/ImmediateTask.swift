import Foundation

/// Main-actor work that starts inside the caller's turn where the runtime can (`Task.immediate`,
/// Swift 6.2 runtimes: Linux, macOS and iOS 26), so work that never suspends is done before the
/// call returns; on older Apple systems it is an ordinary main-actor task, which runs a turn later.
/// Callers must be correct either way.
public enum ImmediateTask {
    /// Starts `operation` on the main actor, at once where the runtime allows.
    @MainActor @discardableResult
    public static func start(_ operation: @escaping @MainActor @Sendable () async -> Void) -> Task<Void, Never> {
        if #available(macOS 26, iOS 26, *) {
            return Task.immediate(operation: operation)
        }
        return Task(operation: operation)
    }
}
