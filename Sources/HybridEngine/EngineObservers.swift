import Foundation

/// The observers of one engine view, called in the order they subscribed. Every adapter keeps
/// one, so `WebEngine.observe` behaves the same on every engine.
@MainActor
public final class EngineObservers {
    private var handlers: [UInt64: @MainActor (EngineEvent) -> Void] = [:]
    private var nextID: UInt64 = 0

    /// Creates an empty list of observers.
    public init() {}

    /// Adds `handler`; it is called until the token is cancelled or released.
    public func add(_ handler: @escaping @MainActor (EngineEvent) -> Void) -> ObservationToken {
        nextID += 1
        let id = nextID
        handlers[id] = handler
        return ObservationToken { [weak self] in self?.handlers[id] = nil }
    }

    /// Delivers `event` to every observer, oldest subscription first. An observer may cancel
    /// itself or others while it runs.
    public func emit(_ event: EngineEvent) {
        for id in handlers.keys.sorted() { handlers[id]?(event) }
    }

    /// Drops every observer at once, as a view does when it closes: no event reaches them afterwards,
    /// and cancelling their tokens later does nothing.
    public func removeAll() {
        // Released only once the list is empty: an observer that owns its own token cancels it
        // as it goes, which must not touch the list while it is being emptied.
        let dropped = handlers
        handlers.removeAll()
        withExtendedLifetime(dropped) {}
    }
}
