import Foundation
import HybridCore

/// Watches one engine's load events from before a navigation is started until it finished.
@MainActor
final class LoadWatch {
    private(set) var started = false
    private(set) var finished = false
    private var failure: String?
    private var token: ObservationToken?

    init(engine: any WebEngine) {
        token = engine.observe { [weak self] event in
            guard let self else { return }
            switch event {
            case .loadStarted, .loadCommitted:
                started = true
                finished = false
            case .loadFinished: finished = true
            case .loadFailed(_, let message, let cancelled):
                finished = true
                if !cancelled { failure = message }
            default: break
            }
        }
    }

    isolated deinit { token?.cancel() }
}

extension WebDriverSession {
    /// Starts a navigation and, with the `normal` or `eager` page-load strategy, returns when its
    /// load finished (or a dialog opened, which blocks the page until the test answers it).
    /// `expectingLoad` false: nothing may start (no history entry), so it is not waited for long.
    func navigate(expectingLoad: Bool, _ start: (WebDriverSession) -> Void) async throws {
        frames = []
        let watch = LoadWatch(engine: view.engine)
        start(self)
        guard capabilities.pageLoadStrategy != .none else { return }
        try await waitForLoad(watch, startWithin: expectingLoad ? 2.0 : 0.1)
    }

    /// Waits until the page the view was asked to show before the session began (its factory
    /// opened it, perhaps while the engine was still starting) has loaded.
    /// - Throws: ``WebDriverError`` `timeout` when it does not within the page-load timeout.
    func waitForFirstPage() async throws {
        let deadline = Date().addingTimeInterval(Double(timeouts.pageLoad) / 1000)
        while Date() < deadline {
            if openDialog != nil { return }
            let engine = view.engine
            if !engine.isLoading, let url = engine.url, url.scheme != "about",
               (try? await engine.evaluate("document.readyState", in: .page))?.stringValue == "complete" {
                return
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        throw WebDriverError(.timeout, "the first page did not load within \(timeouts.pageLoad) ms")
    }

    /// Waits for the load `watch` sees to finish: `startWithin` seconds for one to begin, then up
    /// to the page-load timeout for it to end.
    /// - Throws: ``WebDriverError`` `timeout` when it does not finish in time.
    func waitForLoad(_ watch: LoadWatch, startWithin: Double) async throws {
        let begin = Date()
        let deadline = begin.addingTimeInterval(Double(timeouts.pageLoad) / 1000)
        while !watch.finished {
            if openDialog != nil { return }
            if !watch.started, !view.engine.isLoading, Date().timeIntervalSince(begin) >= startWithin { return }
            if Date() >= deadline {
                throw WebDriverError(.timeout, "the page did not finish loading within \(timeouts.pageLoad) ms")
            }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
    }
}
