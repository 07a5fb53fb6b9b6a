import Foundation

/// A view's warm-up and its life in a ``WebViewPool`` (its ``PoolRecord``).
extension HybridWebView {
    /// Starts the content process with an empty document that leaves no history entry, so the
    /// first real load is fast (a pooled view) or overlaps the network (a preload).
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
