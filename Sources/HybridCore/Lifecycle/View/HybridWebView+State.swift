import Foundation
import HybridEngine

extension HybridWebView {
    /// What the app shows about the page: one value, observed with ``observe(_:)``.
    public struct State: Sendable, Equatable {
        /// The page's URL; `nil` until the view is first asked to show a page (a pooled view's warm-up
        /// document does not count).
        public var url: URL?
        /// The page's title: the one it set through the bridge (`navigation.setTitle`), else the document's.
        public var title: String?
        /// A page is loading.
        public var isLoading: Bool
        /// The progress bar's value (see ``ProgressModel``).
        public var progress: LoadProgress
        /// The back button can go back in the page.
        public var canGoBack: Bool
        /// There is a page to go forward to.
        public var canGoForward: Bool

        /// The state of a view that has shown nothing yet.
        public static let initial = State(url: nil, title: nil, isLoading: false, progress: .initial,
                                          canGoBack: false, canGoForward: false)
    }

    /// Calls `handler` with the state now and on every change, until the token is cancelled.
    public func observe(_ handler: @escaping @MainActor (State) -> Void) -> ObservationToken {
        let id = observers.add(handler)
        handler(state)
        return ObservationToken { [weak self] in self?.observers.remove(id) }
    }

    /// Makes the state anew from the engine, the page record and the features; observers hear a change.
    func refreshState() {
        guard !isClosed else { return }
        var next = state
        next.url = hasNavigated ? engine.url : nil
        next.title = hasNavigated ? (page.titleOverride ?? engine.title) : nil
        next.isLoading = hasNavigated && engine.isLoading
        next.canGoBack = engine.canGoBack
        next.canGoForward = engine.canGoForward
        for feature in features { feature.update(&next) }
        guard next != state else { return }
        state = next
        // Looked up one at a time: a handler may cancel another's token.
        for id in observers.ids { observers[id]?(next) }
    }
}

/// The handlers of ``HybridWebView/observe(_:)``, called in the order they were added.
@MainActor
struct StateObservers {
    private var handlers: [UInt64: @MainActor (HybridWebView.State) -> Void] = [:]
    private var next: UInt64 = 0

    mutating func add(_ handler: @escaping @MainActor (HybridWebView.State) -> Void) -> UInt64 {
        next += 1
        handlers[next] = handler
        return next
    }

    mutating func remove(_ id: UInt64) { handlers[id] = nil }
    mutating func removeAll() { handlers.removeAll() }

    /// The handlers' ids, oldest first.
    var ids: [UInt64] { handlers.keys.sorted() }

    subscript(id: UInt64) -> (@MainActor (HybridWebView.State) -> Void)? { handlers[id] }
}
