import Foundation

/// What a view knows of its warm-up and its life in a pool: whether its content process holds a
/// document yet (warm), whether it showed a page, how often a pool handed it out, whether the
/// empty warm-up document is still the one loading (its blank events are not the page's), and
/// who waits for it to be warm. Owned by ``HybridWebView``; every change to it is made here.
@MainActor
struct PoolRecord {
    /// Times a pool handed the view out (``WebViewPoolPolicy/maximumReuse``).
    private(set) var uses = 0
    /// The content process has loaded a document: the warm-up one or a page.
    private(set) var isWarm = false
    /// The view showed (or was asked to show) a page.
    private(set) var hasNavigated = false
    /// The warm-up document was started and no page yet: blank loads are its events.
    private var ignoresBlankLoads = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// A pool handed the view out.
    mutating func handedOut() { uses += 1 }

    /// Whether to start the warm-up document now (not when warm already); from now until a page
    /// starts, blank loads are the warm-up's.
    mutating func beginWarmUp() -> Bool {
        guard !isWarm else { return false }
        ignoresBlankLoads = true
        return true
    }

    /// A page load began (the app's, or one the engine reports): the view has navigated.
    mutating func navigationBegan() {
        hasNavigated = true
        ignoresBlankLoads = false
    }

    /// Whether a load of `url` is the warm-up document: WebKit reports it as about:blank (or no
    /// URL), Blink as a data: URL.
    func isPlaceholder(_ url: URL?) -> Bool {
        ignoresBlankLoads && (url == nil || url?.scheme == "about" || url?.scheme == "data")
    }

    /// Whether the view should still report the warm-up document's progress as nothing.
    var isWarmingUp: Bool { ignoresBlankLoads }

    /// A page finished loading: the process holds a document.
    mutating func pageLoaded() { isWarm = true }

    /// The content process ended: the next view of it starts cold.
    mutating func processEnded() { isWarm = false }

    /// Whether a caller must wait for warmth: not when warm, closed, or (unless it waits while
    /// navigating) when the view already shows a page.
    func needsWaiting(whileNavigating: Bool, closed: Bool) -> Bool {
        !isWarm && (whileNavigating || !hasNavigated) && !closed
    }

    /// Keeps `waiter` until the view is warm.
    mutating func waitForWarmth(_ waiter: CheckedContinuation<Void, Never>) { waiters.append(waiter) }

    /// The warm-up finished (or the wait for it timed out): warm now; returns the waiters to
    /// resume, each once.
    mutating func warmedUp() -> [CheckedContinuation<Void, Never>] {
        isWarm = true
        defer { waiters.removeAll() }
        return waiters
    }
}
