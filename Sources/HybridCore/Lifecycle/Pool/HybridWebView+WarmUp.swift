import Foundation

/// A view's warm-up and its life in a ``WebViewPool`` (its ``PoolRecord``).
extension HybridWebView {
    /// Starts the content process with an empty document that leaves no history entry, so the
    /// first real load is fast (a pooled view) or overlaps the network (a preload). Once that
    /// document has loaded it makes one bridge call (`hybrid.info`, which the bridge refuses to its
    /// opaque origin unless a module admits every origin), so the next page's first call finds
    /// the call path compiled; then the view is warm.
    public func warmUp() {
        guard !isClosed, poolRecord.beginWarmUp() else { return }
        engine.loadHTML("", baseURL: nil)
    }

    /// Returns once the warm-up document has loaded (or at once if the view is warm or in use).
    public func waitUntilWarm(timeout: Double = 10) async {
        await waitUntilWarm(timeout: timeout, whileNavigating: false)
    }

    func waitUntilWarm(timeout: Double = 10, whileNavigating: Bool) async {
        guard poolRecord.needsWaiting(whileNavigating: whileNavigating, closed: isClosed) else { return }
        await withCheckedContinuation { continuation in
            poolRecord.waitForWarmth(continuation)
            Task { [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(timeout * 1e9))
                self?.finishWarmUp()
            }
        }
    }

    /// The warm-up document loaded: one bridge call is made in it before the view counts as
    /// warm, so the page a pooled view shows next does not pay for the bridge's first call
    /// (its script compiled and its first message sent: about 1 ms of the page's own time,
    /// against 0.1 ms for every later call). The call is the container's own, from an opaque
    /// origin: refused like any other unless a module admits `*` (then answered with what any
    /// page may learn); its answer is not looked at. Only a preload navigates a view before it
    /// is warm: its call then ends with the document on Blink and at the view's close on
    /// WebKitGTK (which keeps a navigated document's call pending), and the view is warm by its
    /// page's load-finished either way.
    func warmBridgeThenFinish() {
        // The engine, not the view, is held while the call runs: a view let go closes (and so
        // ends the call) in its deinit.
        Task { [weak self, engine] in
            _ = try? await engine.callAsync(Self.bridgeWarmUpScript)
            self?.finishWarmUp()
        }
    }

    /// Waits for the runtime and makes one call, for at most 300 ms; never throws.
    static let bridgeWarmUpScript = """
        const call = (async () => {
          if (!window.hybrid) return;
          await window.hybrid.ready;
          await window.hybrid.call('hybrid', 'info');
        })().catch(() => {});
        await Promise.race([call, new Promise((resolve) => setTimeout(resolve, 300))]);
        return null;
        """

    func finishWarmUp() {
        for waiter in poolRecord.warmedUp() { waiter.resume() }
    }

    /// Hides the view as ``setVisible(_:)`` with `false` does (dialogs get their safe defaults),
    /// but asks the engine to keep it mapped out of sight (``EngineView/setParked(_:)``): a warm
    /// pooled view is shown again without being mapped and realised anew.
    func park() {
        guard !isClosed else { return }
        isVisible = false
        engine.setParked(true)
        report(.visibilityChanged(false))
    }
}
