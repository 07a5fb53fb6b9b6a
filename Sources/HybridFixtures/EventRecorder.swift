import Foundation
import HybridCore

/// Records a view's events and lets a test await the next one that matches.
@MainActor
public final class EventRecorder {
    /// Every event the view reported since the recorder was made, oldest first.
    public private(set) var events: [EngineEvent] = []
    private var token: ObservationToken?
    private var waiters: [(id: Int, predicate: (EngineEvent) -> Bool, continuation: CheckedContinuation<EngineEvent, any Error>)] = []
    private var cursor = 0
    private var nextWaiter = 0

    /// Starts recording `engine`'s events; recording lasts as long as the recorder.
    public init(_ engine: any WebEngine) {
        token = engine.observe { [weak self] event in self?.record(event) }
    }

    private func record(_ event: EngineEvent) {
        events.append(event)
        if let index = waiters.firstIndex(where: { $0.predicate(event) }) {
            let waiter = waiters.remove(at: index)
            cursor = events.count
            waiter.continuation.resume(returning: event)
        }
    }

    /// Forgets what was recorded so far (``next(_:timeout:)`` only sees later events).
    public func reset() { cursor = events.count }

    /// The first event after the cursor that matches, waiting up to `timeout` seconds.
    @discardableResult
    public func next(_ what: String = "event", timeout: Double = 15, where predicate: @escaping (EngineEvent) -> Bool) async throws -> EngineEvent {
        if let index = events[cursor...].firstIndex(where: predicate) {
            cursor = index + 1
            return events[index]
        }
        nextWaiter += 1
        let id = nextWaiter
        let timer = Task { @MainActor [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
            guard let self, let index = self.waiters.firstIndex(where: { $0.id == id }) else { return }
            self.waiters.remove(at: index).continuation.resume(throwing: TimeoutError(what: what, seconds: timeout))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            waiters.append((id, predicate, continuation))
        }
    }

    /// Waits for the next load (of `url`, when given) to finish; throws if it fails instead.
    public func loadFinished(_ url: URL? = nil, timeout: Double = 20) async throws {
        let event = try await next("load to finish", timeout: timeout) {
            switch $0 {
            case .loadFinished(let finished): url == nil || finished == url
            case .loadFailed(let failed, _, let cancelled): !cancelled && (url == nil || failed == url)
            default: false
            }
        }
        if case .loadFailed(let url, let message, _) = event {
            throw HybridError.engine(.loadFailed(url: url?.absoluteString ?? "?", message: message))
        }
    }
}

extension WebEngine {
    /// Runs `start` and waits for the load it begins (of `url`, when given) to finish; throws if
    /// it fails instead. The engine is observed before `start` runs, so no event is missed.
    public func waitForLoad(of url: URL? = nil, timeout: Double = 20, after start: () -> Void) async throws {
        let recorder = EventRecorder(self)
        start()
        try await recorder.loadFinished(url, timeout: timeout)
    }

    /// Loads HTML and waits for it to finish.
    public func loadHTMLAndWait(_ html: String, baseURL: URL? = URL(string: "https://test.hybridkit.invalid/"), timeout: Double = 20) async throws {
        try await waitForLoad(timeout: timeout) { loadHTML(html, baseURL: baseURL) }
    }

    /// Loads a URL and waits for it to finish.
    public func loadAndWait(_ url: URL, timeout: Double = 20) async throws {
        try await waitForLoad(timeout: timeout) { load(url) }
    }

    /// Polls a JavaScript condition until it is true (see ``eventually(_:timeout:_:)``).
    public func waitUntil(_ condition: String, timeout: Double = 10, in world: ScriptWorld = .page) async throws {
        try await eventually(condition, timeout: timeout) {
            (try? await evaluate("!!(\(condition))", in: world)) == .bool(true)
        }
    }
}
