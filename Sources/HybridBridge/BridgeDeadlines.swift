import Foundation

/// Call deadlines on one timer, instead of one sleeping task per call.
///
/// Most calls finish long before their deadline and only remove their entry; the timer is
/// restarted only when a new deadline is earlier than the one it sleeps until. When it fires it
/// expires everything due and sleeps until the next deadline.
@MainActor
final class BridgeDeadlines {
    private var deadlines: [UInt64: ContinuousClock.Instant] = [:]
    private var wake: ContinuousClock.Instant?
    private var timer: Task<Void, Never>?
    /// Called for each call whose deadline passed.
    var onExpire: (@MainActor (UInt64) -> Void)?

    var count: Int { deadlines.count }

    func add(_ token: UInt64, at deadline: ContinuousClock.Instant) {
        deadlines[token] = deadline
        if let wake, wake <= deadline { return }
        schedule(deadline)
    }

    /// Whether `token`'s deadline has passed (even if the timer has not fired yet).
    func hasExpired(_ token: UInt64, at now: ContinuousClock.Instant = .now) -> Bool {
        deadlines[token].map { $0 <= now } ?? false
    }

    /// Forgets a deadline. The timer keeps sleeping: restarting it per call would cost a task
    /// and a system timer for every call; when it fires with nothing due it simply stops.
    func remove(_ token: UInt64) {
        deadlines[token] = nil
    }

    private func schedule(_ deadline: ContinuousClock.Instant) {
        timer?.cancel()
        wake = deadline
        timer = Task { [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            guard !Task.isCancelled else { return }
            self?.fire()
        }
    }

    private func fire() {
        timer = nil
        wake = nil
        let now = ContinuousClock.now
        let due = deadlines.filter { $0.value <= now }.sorted { $0.value < $1.value }.map(\.key)
        for token in due {
            deadlines[token] = nil
            onExpire?(token)
        }
        if let next = deadlines.values.min(), wake == nil { schedule(next) }
    }
}
